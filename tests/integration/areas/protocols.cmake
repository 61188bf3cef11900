# One program per runtime protocol (programs/): every object kind and
# collective, section multicasts following migrated members, migration,
# population changes under reductions, observers. Each on 1-4 PEs, with
# +serialize, and under the deterministic driver over many seeds; across
# processes in transports.cmake, traced in trace.cmake.
add_executable(collectives_check programs/collectives_check.cpp)
target_link_libraries(collectives_check PRIVATE roam roam_warnings)
foreach(pes 1 2 4)
  roam_program_test(collectives_check.p${pes} RC 0 REGEX "collectives_check: OK" COMMAND $<TARGET_FILE:collectives_check> +p${pes})
endforeach()
roam_program_test(collectives_check.serialize_p3 RC 0 REGEX "collectives_check: OK"
                  COMMAND $<TARGET_FILE:collectives_check> +p3 +serialize 17)

# Section multicasts follow migrated members (src/obj/section_regroup.cpp).
add_executable(section_regroup_check programs/section_regroup_check.cpp)
target_link_libraries(section_regroup_check PRIVATE roam roam_warnings)
foreach(pes 1 2 4)
  roam_program_test(section_regroup_check.p${pes} RC 0 REGEX "section_regroup_check: OK"
                    COMMAND $<TARGET_FILE:section_regroup_check> +p${pes})
endforeach()
roam_program_test(section_regroup_check.serialize_p3 RC 0 REGEX "section_regroup_check: OK"
                  COMMAND $<TARGET_FILE:section_regroup_check> +p3 +serialize)

# Exact accounting while elements migrate, are inserted and die (issue #5).
add_executable(migration_check programs/migration_check.cpp)
target_link_libraries(migration_check PRIVATE roam roam_warnings)
foreach(pes 1 2 4)
  roam_program_test(migration_check.p${pes} RC 0 REGEX "migration_check: OK" COMMAND $<TARGET_FILE:migration_check> +p${pes})
endforeach()
roam_program_test(migration_check.serialize_p3 RC 0 REGEX "migration_check: OK"
                  COMMAND $<TARGET_FILE:migration_check> +p3 +serialize 150)
roam_program_test(migration_check.thousands_p4 RC 0 REGEX "migration_check: OK"
                  COMMAND $<TARGET_FILE:migration_check> +p4 2000 2 10)

# Reductions stay exact when the population changes on a PE that already passed
# the reduction up (issue #11): late splits, grows, deaths and contributions.
add_executable(population_check programs/population_check.cpp)
target_link_libraries(population_check PRIVATE roam roam_warnings)
foreach(pes 1 2 3 4)
  roam_program_test(population_check.p${pes} RC 0 REGEX "population_check: OK" COMMAND $<TARGET_FILE:population_check> +p${pes})
endforeach()
foreach(pes 3 4)
  roam_program_test(population_check.serialize_p${pes} RC 0 REGEX "population_check: OK"
                    COMMAND $<TARGET_FILE:population_check> +p${pes} +serialize)
endforeach()

# Runtime observers see every entry, task resumption and thread slice exactly (issue #12).
add_executable(observer_check programs/observer_check.cpp)
target_link_libraries(observer_check PRIVATE roam roam_warnings)
foreach(pes 1 2 4)
  roam_program_test(observer_check.p${pes} RC 0 REGEX "observer_check: OK" COMMAND $<TARGET_FILE:observer_check> +p${pes})
endforeach()

# Under the deterministic driver (roam_seed_sweep, shared.cmake).
# population_check runs its "after" way only: its "replay" way holds a PE in
# a busy loop until another PE moves on, which one thread cannot do (the
# driver's random choices produce replays without it).
roam_seed_sweep(deterministic.migration_check.p4 1 40 "migration_check: OK" $<TARGET_FILE:migration_check> +p4)
roam_seed_sweep(deterministic.migration_check.p3_serialize 41 60 "migration_check: OK"
                $<TARGET_FILE:migration_check> +p3 +serialize)
roam_seed_sweep(deterministic.population_check.p4 1 40 "population_check: OK" $<TARGET_FILE:population_check> 2 -1 0 +p4)
roam_seed_sweep(deterministic.population_check.p3 41 80 "population_check: OK" $<TARGET_FILE:population_check> 2 -1 0 +p3)
roam_seed_sweep(deterministic.collectives_check.p4 1 30 "collectives_check: OK" $<TARGET_FILE:collectives_check> +p4)
roam_seed_sweep(deterministic.section_regroup_check.p4 1 20 "section_regroup_check: OK"
                $<TARGET_FILE:section_regroup_check> +p4)

# Migratable threads moved while blocked (issue #37): a recursion with a heap
# list and pointers into its frames hopping round the PEs; load balancing of
# threads blocked in at_sync_and_wait (skewed work; Rotate moves all).
add_executable(thread_migration_check programs/thread_migration_check.cpp)
# roam::iso_heap: its heap-* modes start threads with isomalloc_heap.
target_link_libraries(thread_migration_check PRIVATE roam roam_iso_heap roam_warnings)
foreach(pes 1 2 4)
  roam_program_test(thread_migration_check.walk_p${pes} RC 0 REGEX "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                    COMMAND $<TARGET_FILE:thread_migration_check> +p${pes} walk)
endforeach()
roam_program_test(thread_migration_check.walk_serialize_p3 RC 0 REGEX "thread_migration_check: OK"
                  COMMAND $<TARGET_FILE:thread_migration_check> +p3 +serialize walk 6 16 9)
roam_program_test(thread_migration_check.balance_rotate_p3 RC 0
                  REGEX "thread_migration_check: OK \\(64 elements, 4 steps, 256 moves\\)"
                  COMMAND ${CMAKE_COMMAND} -E env ROAM_TEST_EVERY_STEP_MOVES=1
                          $<TARGET_FILE:thread_migration_check> +p3 +balancer Rotate balance 64 4)
roam_program_test(thread_migration_check.balance_greedy_p2 RC 0 REGEX "thread_migration_check: OK \\(64 elements, 3 steps"
                  COMMAND $<TARGET_FILE:thread_migration_check> +p2 +balancer GreedyRefine balance 64 3)
roam_seed_sweep(deterministic.thread_migration_check.p3 1 10 "thread_migration_check: OK"
                $<TARGET_FILE:thread_migration_check> +p3 walk 4 10 8)
# The same with thread heaps (isomalloc_heap: malloc, new, std containers,
# exceptions served from each thread's slot).
roam_program_test(thread_migration_check.heap_walk_p2 RC 0 REGEX "thread_migration_check: OK \\(8 walkers, 12 hops each\\)"
                  COMMAND $<TARGET_FILE:thread_migration_check> +p2 heap-walk)
roam_program_test(thread_migration_check.heap_walk_serialize_p3 RC 0 REGEX "thread_migration_check: OK \\(6 walkers, 9 hops each\\)"
                  COMMAND $<TARGET_FILE:thread_migration_check> +p3 +serialize heap-walk 6 16 9)
roam_seed_sweep(deterministic.thread_migration_check.heap_p3 1 5 "thread_migration_check: OK"
                $<TARGET_FILE:thread_migration_check> +p3 heap-walk 4 10 8)
# Threads waiting in future::get while they move: the outcome follows them
# (values, exceptions, future<void>; answers before and after the thread's
# report of where it went), the futures on the stack or in the thread's heap.
roam_program_test(thread_migration_check.futures_p2 RC 0
                  REGEX "thread_migration_check: OK \\(8 callers, 12 calls each, 168 moves while waiting\\)"
                  COMMAND $<TARGET_FILE:thread_migration_check> +p2 futures)
roam_program_test(thread_migration_check.heap_futures_serialize_p3 RC 0
                  REGEX "thread_migration_check: OK \\(6 callers, 16 calls each, 162 moves while waiting\\)"
                  COMMAND $<TARGET_FILE:thread_migration_check> +p3 +serialize heap-futures 6 16)
roam_seed_sweep(deterministic.thread_migration_check.futures_p3 1 5 "thread_migration_check: OK"
                $<TARGET_FILE:thread_migration_check> +p3 futures 4 12)

# +setcpuaffinity: each PE on its own core, counted over the PEs of its host
# (processes of one host used to pin their PE 0s to the same core).
add_executable(affinity_check programs/affinity_check.cpp)
target_link_libraries(affinity_check PRIVATE roam roam_warnings)
roam_program_test(affinity_check.p2 RC 0 REGEX "affinity_check: OK \\(2 pes"
                  COMMAND $<TARGET_FILE:affinity_check> +p2 +setcpuaffinity)
if(TARGET roamrun)
  roam_program_test(tcp.affinity_check.n2_ppn1 RC 0 REGEX "affinity_check: OK \\(2 pes"
                    COMMAND $<TARGET_FILE:roamrun> -n 2 +ppn 1 $<TARGET_FILE:affinity_check> +setcpuaffinity)
endif()
