# The runtime's own options (+p, +help, +version, counts below their
# minimum, +idlestats, ++x passed through), tried on the examples.
if(ROAM_BUILD_EXAMPLES)
  roam_program_test(options.bogus RC 2 REGEX "unknown runtime option '\\+bogus'"
                    COMMAND $<TARGET_FILE:hello> +bogus)
  roam_program_test(options.help RC 0 REGEX "\\+p N.*number of PEs.*\\+serialize.*\\+help"
                    NOT_REGEX "greeters said hello" COMMAND $<TARGET_FILE:hello> +help)
  # +version: the build description, nothing run; +help starts with it. The
  # sanitizers line must say what this build was made with.
  if(ROAM_SANITIZE)
    string(REPLACE ";" "," _san "${ROAM_SANITIZE}")
  else()
    set(_san none)
  endif()
  if(ROAM_HAVE_MPI)
    set(_transports "threads, tcp, mpi \\(")
  else()
    set(_transports "threads, tcp[^,]")
  endif()
  string(REPLACE "." "\\." _version "${PROJECT_VERSION}")
  set(_build_re "^roam ${_version} \\([^,]+, ${CMAKE_CXX_COMPILER_ID} [0-9.]+\\).*transports: ${_transports}.*sanitizers: ${_san}[^,]")
  roam_program_test(options.version RC 0 REGEX "${_build_re}.*Metis load balancing: (yes|no)"
                    NOT_REGEX "greeters said hello|runtime options" COMMAND $<TARGET_FILE:hello> +version)
  roam_program_test(options.help_shows_build RC 0 REGEX "${_build_re}.*roam runtime options.*\\+version"
                    NOT_REGEX "greeters said hello" COMMAND $<TARGET_FILE:hello> +help)
  if(TARGET roamrun)
    roam_program_test(roamrun.version RC 0 REGEX "^roamrun: roam ${_version} \\(.*sanitizers: ${_san}[^,]"
                      COMMAND $<TARGET_FILE:roamrun> --version)
  endif()
  # Counting options below their minimum (parse_count).
  roam_program_test(options.bfactor_too_small RC 2 REGEX "'\\+bfactor' expects at least 2"
                    COMMAND $<TARGET_FILE:hello> +bfactor 1)
  roam_program_test(options.lb_group_pes_zero RC 2 REGEX "'\\+LBGroupPEs' expects at least 1"
                    COMMAND $<TARGET_FILE:hello> +balancer Hierarchical +LBGroupPEs 0)
  roam_program_test(options.ulstack_too_small RC 2 REGEX "'\\+ulstack' expects at least 16K"
                    COMMAND $<TARGET_FILE:hello> +ulstack 4096)
  roam_program_test(options.idlestats RC 0
                    EACH_REGEX "\\[pe 0/2\\] idle [0-9]+ times .*slept [0-9]+ times .*wake-up latency mean [0-9.]+ us.*spin budget now [0-9]+ us"
                               "\\[pe 1/2\\] idle [0-9]+ times"
                    COMMAND $<TARGET_FILE:pingpong> +p2 +idlestats)
  roam_program_test(options.p_zero RC 2 REGEX "'\\+p' expects at least 1 PE" COMMAND $<TARGET_FILE:hello> +p0)
  roam_program_test(options.p_missing_value RC 2 REGEX "'\\+p' needs a value" COMMAND $<TARGET_FILE:hello> +p)
  roam_program_test(options.p_separate_value RC 0 REGEX "all 8 greeters said hello" COMMAND $<TARGET_FILE:hello> +p 3)
  # `++x` is not a runtime option: it reaches the program (hello then rejects it as its count: a bad argument).
  roam_program_test(options.plusplus_passthrough RC 2 REGEX "hello: GREETERS: '\\+\\+x' is not a whole number"
                    COMMAND $<TARGET_FILE:hello> +p2 ++x)
endif()
