# TCP transport tests: tcp_probe (drives the transport directly) and plain
# shell programs, started by roamrun and checked through run_expect.cmake.
add_executable(tcp_probe ${CMAKE_CURRENT_LIST_DIR}/tcp_probe.cpp)
target_link_libraries(tcp_probe PRIVATE roam_warnings)
roam_use_layer_internals(tcp_probe machine)

set(_roamrun $<TARGET_FILE:roamrun>)
set(_probe $<TARGET_FILE:tcp_probe>)

# roam_tcp_test(NAME RC <status|nonzero> [REGEX <re>] [NOT_REGEX <re>] [EACH_REGEX <re>...] [ENV <k=v>...] COMMAND <program> <args>...)
# (Values are passed on quoted: a list element such as "\\[node" would open a
# CMake bracket and swallow the separators after it.)
function(roam_tcp_test name)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "RC;REGEX;NOT_REGEX" "EACH_REGEX;ENV;COMMAND")
  roam_program_test(${name} RC "${A_RC}" REGEX "${A_REGEX}" NOT_REGEX "${A_NOT_REGEX}"
                    EACH_REGEX ${A_EACH_REGEX} LABELS transport
                    ENV ${A_ENV} COMMAND ${A_COMMAND})
endfunction()

# ---- the transport --------------------------------------------------------------
foreach(n 2 3)
  roam_tcp_test(transport.tcp.order_n${n} RC 0
    EACH_REGEX "tcp_probe order: node 0 OK" "\\[node 1\\] tcp_probe order: node 1 OK"
    NOT_REGEX "FAILED|saw node"
    COMMAND ${_roamrun} -n ${n} ${_probe} order 2000 3)
endforeach()
# Out-of-line segments (docs/design/zero-copy.md): count, sizes and contents
# arrive exactly, in order with the frames, from threads and the progress thread.
foreach(n 2 3)
  roam_tcp_test(transport.tcp.segments_n${n} RC 0
    EACH_REGEX "tcp_probe segments: node 0 OK" "\\[node 1\\] tcp_probe segments: node 1 OK"
    NOT_REGEX "FAILED|saw node"
    COMMAND ${_roamrun} -n ${n} ${_probe} segments 600 2)
endforeach()
roam_tcp_test(transport.tcp.pingpong_n2 RC 0 REGEX "one-way latency median"
  COMMAND ${_roamrun} -n 2 ${_probe} pingpong 2000 8)
roam_tcp_test(transport.tcp.stranger_refused RC 0
  EACH_REGEX "roam tcp \\[node 1\\]: refused a connection from 127\\.0\\.0\\.1:[0-9]+: wrong job secret.*refused a connection from 127\\.0\\.0\\.1:[0-9]+: malformed handshake"
             "roamrun: refused a connection from 127\\.0\\.0\\.1:[0-9]+: wrong job secret"
  NOT_REGEX "FAILED|saw node"
  COMMAND ${_roamrun} -n 2 ${_probe} rogue)
roam_tcp_test(transport.tcp.sigkill_reported_by_survivors RC 137
  EACH_REGEX "tcp_probe: node 0 saw node 2 fail: node 2 \\(127\\.0\\.0\\.1:[0-9]+\\) closed the connection without finishing"
             "roamrun: node 2 \\(pid [0-9]+\\) killed by signal 9"
  NOT_REGEX "FAILED|saw node [01] fail"
  COMMAND ${_roamrun} -n 3 ${_probe} die)
roam_tcp_test(transport.tcp.sigkill_reported_by_node1 RC 137
  REGEX "\\[node 1\\] tcp_probe: node 1 saw node 2 fail"
  COMMAND ${_roamrun} -n 3 ${_probe} die)
roam_tcp_test(transport.tcp.hung_peer_found_by_heartbeat RC nonzero
  REGEX "node 0 saw node 2 fail: node 2 \\([^)]*\\) sent nothing, not even a heartbeat, for 1000 ms"
  NOT_REGEX "FAILED|saw node [01] fail"
  ENV ROAM_TCP_HEARTBEAT_INTERVAL_MS=100 ROAM_TCP_HEARTBEAT_TIMEOUT_MS=1000
  COMMAND ${_roamrun} -n 3 --grace 0 ${_probe} hang)
roam_tcp_test(transport.tcp.exit_code_of_a_node RC 3
  EACH_REGEX "saw node 1 fail" "roamrun: node 1 \\(pid [0-9]+\\) exited with code 3"
  COMMAND ${_roamrun} -n 2 ${_probe} exit)
# --hosts through a stand-in for ssh: round-robin hosts, secret over stdin, cd + env on the "remote" side.
roam_tcp_test(transport.tcp.hosts_over_fake_ssh RC 0
  EACH_REGEX "tcp_probe order: node 0 OK" "\\[node 1\\] fake ssh to beta"
  NOT_REGEX "FAILED|saw node"
  ENV ROAMRUN_SSH=${CMAKE_CURRENT_LIST_DIR}/fake_ssh.sh ROAMRUN_HOST=127.0.0.1
  COMMAND ${_roamrun} -n 3 --hosts ${CMAKE_CURRENT_LIST_DIR}/two_hosts.txt ${_probe} order 200 2)

# ---- roamrun alone ----------------------------------------------------------------
roam_tcp_test(roamrun.prefixes_every_node_but_0 RC 0
  EACH_REGEX "(^|\n)hello from 0 of 3\n" "\\[node 1\\] hello from 1 of 3" "\\[node 2\\] hello from 2 of 3"
  NOT_REGEX "\\[node 0\\]"
  COMMAND ${_roamrun} -n 3 sh -c "echo hello from $ROAM_TCP_NODE of $ROAM_TCP_NODES")
roam_tcp_test(roamrun.no_prefix RC 0 REGEX "(^|\n)hello 1\n" NOT_REGEX "\\[node"
  COMMAND ${_roamrun} --no-prefix -n 2 sh -c "echo hello $ROAM_TCP_NODE")
roam_tcp_test(roamrun.passes_arguments_unchanged RC 0
  REGEX "\\[node 1\\] \\[\\+ppn\\]\\[2\\]\\[a b\\]\\[\\$HOME\\]\\['q'\\]\\[-n\\]\\[\\+ppn\\]\\[5\\]"
  COMMAND ${_roamrun} -n 2 +ppn 2 ${CMAKE_CURRENT_LIST_DIR}/print_args.sh "a b" "$HOME" "'q'" -n +ppn 5)
roam_tcp_test(roamrun.forwards_exit_code RC 3 REGEX "roamrun: node 1 \\(pid [0-9]+\\) exited with code 3"
  COMMAND ${_roamrun} -n 3 sh -c "test $ROAM_TCP_NODE != 1 || exit 3")
roam_tcp_test(roamrun.reports_signal RC 137 REGEX "roamrun: node 1 \\(pid [0-9]+\\) killed by signal 9"
  COMMAND ${_roamrun} -n 2 sh -c "test $ROAM_TCP_NODE != 1 || kill -9 $$")
roam_tcp_test(roamrun.stops_the_others_after_a_failure RC 5 REGEX "stopping node\\(s\\) 0, 2"
  COMMAND ${_roamrun} -n 3 --grace 0 sh -c "test $ROAM_TCP_NODE != 1 || exit 5 && exec sleep 30")
roam_tcp_test(roamrun.usage_unknown_option RC 2 REGEX "roamrun: unknown option '--frobnicate'"
  COMMAND ${_roamrun} --frobnicate -n 2 true)
roam_tcp_test(roamrun.usage_missing_program RC 2 REGEX "roamrun: missing the program to run"
  COMMAND ${_roamrun} -n 2)
roam_tcp_test(roamrun.usage_zero_nodes RC 2 REGEX "roamrun: -n needs a node count from 1 to 65536, not '0'"
  COMMAND ${_roamrun} -n 0 true)
roam_tcp_test(roamrun.usage_missing_nodes RC 2 REGEX "roamrun: missing -n NODES"
  COMMAND ${_roamrun} true)
roam_tcp_test(roamrun.usage_unreadable_hosts_file RC 2
  REGEX "roamrun: cannot read the hosts file '/nonexistent/hosts': No such file"
  COMMAND ${_roamrun} -n 2 --hosts /nonexistent/hosts true)
roam_tcp_test(roamrun.program_not_found RC 127 REGEX "roamrun: cannot run './no-such-program'"
  COMMAND ${_roamrun} -n 2 ./no-such-program)
add_test(NAME roamrun.sigint_leaves_no_process
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/sigint_cleanup.sh ${_roamrun})
set_tests_properties(roamrun.sigint_leaves_no_process PROPERTIES TIMEOUT 60 LABELS transport)
