# Programs that must fail, and how (error_programs/, built as err_<name>):
# the exit status and the report naming the PE, the object and the entry;
# reports of suspended tasks; identifier collisions found at start-up. The
# same programs across processes: process_failures.cmake.
foreach(prog throw_in_entry bad_index bad_group_pe exit_code exit_at_once stuck_tasks entry_collision node_dies)
  add_executable(err_${prog} error_programs/${prog}.cpp)
  target_link_libraries(err_${prog} PRIVATE roam roam_warnings)
endforeach()

foreach(pes 1 4)
  roam_program_test(error.throw_in_entry.p${pes} RC 1
                    REGEX "\\[pe [0-9]+/${pes}\\] array thrower\\[3\\] entry thrower::explode: uncaught exception: boom"
                    COMMAND $<TARGET_FILE:err_throw_in_entry> +p${pes} send)
endforeach()
# Block map: element 3 of 4 lives on pe 3.
roam_program_test(error.throw_in_entry.serialize RC 1
                  REGEX "\\[pe 3/4\\] array thrower\\[3\\] entry thrower::explode: uncaught exception: boom"
                  COMMAND $<TARGET_FILE:err_throw_in_entry> +p4 +serialize send)
# Through a broadcast: the report must still name the element that threw, not `thrower[*]`.
roam_program_test(error.throw_in_entry.broadcast RC 1
                  REGEX "\\[pe 3/4\\] array thrower\\[3\\] entry thrower::explode: uncaught exception: boom"
                  COMMAND $<TARGET_FILE:err_throw_in_entry> +p4 broadcast)
roam_program_test(error.bad_index.send RC 1
                  REGEX "\\[pe 0/2\\] array target\\[-1\\] entry target::poke: index outside the array's extents"
                  COMMAND $<TARGET_FILE:err_bad_index> +p2 send)
roam_program_test(error.bad_index.call RC 1
                  REGEX "\\[pe 0/2\\] array target\\[4\\] entry target::peek: index outside the array's extents"
                  NOT_REGEX "call returned" COMMAND $<TARGET_FILE:err_bad_index> +p2 call)
roam_program_test(error.bad_group_pe RC 1 REGEX "\\[pe 0/2\\] group member\\[99\\] entry member::poke: pe 99 outside \\[0,2\\)"
                  COMMAND $<TARGET_FILE:err_bad_group_pe> +p2 group)
roam_program_test(error.bad_chare_pe RC 1 REGEX "\\[pe 0/2\\] create_chare<lonely>: pe 99 outside \\[0,2\\)"
                  COMMAND $<TARGET_FILE:err_bad_group_pe> +p2 chare)
foreach(pes 1 2 4)
  math(EXPR pes_last "${pes} - 1")
  roam_program_test(error.exit_code_last_pe.p${pes} RC 7 REGEX "pe ${pes_last} of ${pes} calls roam::exit\\(7\\)"
                    COMMAND $<TARGET_FILE:err_exit_code> +p${pes})
endforeach()

# Reports of suspended tasks: on request (each PE once) and at exit (+taskreport, once more).
roam_program_test(report.waiting_tasks_p3 RC 0
                  EACH_REGEX "stuck_tasks: reported on 3 pes"
                             "\\[pe 2/3\\] 1 unfinished task:\n  array waiter\\[2\\]: 1 task\n    mailbox waiter::step: 1 receive waits \\(ref 102\\); 1 message kept \\(ref 2\\)\n.*\\[pe 2/3\\] 1 unfinished task:\n  array waiter\\[2\\]"
                  COMMAND $<TARGET_FILE:err_stuck_tasks> +p3 +taskreport)

# Colliding entry identifiers are a start-up error naming both entries.
roam_program_test(error.entry_id_collision RC 1
                  REGEX "identifier collision.*entry id 0x[0-9a-f]+: '(impostor/impostor::work' and 'real/real::work|real/real::work' and 'impostor/impostor::work)'"
                  NOT_REGEX "main ran" COMMAND $<TARGET_FILE:err_entry_collision> +p2)
# A collision planted in each stable-id registry is reported at start-up with
# the registry, the id and both names (include/roam/msg/detail/stable_registry.hpp).
add_executable(err_registry_collision error_programs/registry_collision.cpp)
target_link_libraries(err_registry_collision PRIVATE roam roam_warnings)
foreach(kind_and_names
    "entry|entry|impostor/impostor::work"
    "class|class|impostor_class"
    "element|element type|impostor_cell"
    "chare|chare type|impostor_class"
    "map|map|block"
    "callback|callback kind|impostor_callback"
    "partial|reduction partial kind|impostor_partial"
    "reducer|reducer|impostor_reducer")
  string(REPLACE "|" ";" _parts "${kind_and_names}")
  list(GET _parts 0 _kind)
  list(GET _parts 1 _registry)
  list(GET _parts 2 _name)
  roam_program_test(error.registry_collision.${_kind} RC 1
                    REGEX "identifier collision.*${_registry} id 0x[0-9a-f]+: '[^']+' and '[^']+'"
                    EACH_REGEX "${_name}"
                    NOT_REGEX "main ran" COMMAND $<TARGET_FILE:err_registry_collision> ${_kind} +p2)
endforeach()
roam_program_test(error.registry_collision.none RC 0 REGEX "main ran"
                  COMMAND $<TARGET_FILE:err_registry_collision> +p1)

# roam-bench starts: its start-up checks pass (a map or entry defined twice
# under one name in the bench sources is a start-up error, not a silent pick).
if(TARGET roam-bench)
  roam_program_test(bench.starts RC 0 COMMAND $<TARGET_FILE:roam-bench> noop +p2)
endif()
