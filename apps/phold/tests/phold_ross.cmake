# phold_ross (apps/phold/phold_ross.c), PHOLD written in C against ROSS's
# API (libs/pdes/include/ross.h): ROSS's counts under --synch=1..4, its
# option syntax, and its errors. Included from apps/phold/tests/CMakeLists.txt.
# --nlp is per PE, as in ROSS: 40 on 2 PEs are the 80 LPs of the counts.
set(_ross --nlp=40 --start-events=16 --lookahead=0.1 --mean=1.0)
# ROSS's own count (checked against ROSS built here) with ROSS's command line:
roam_program_test(phold_ross.synch3.p2.remote0.5_end1000 REGEX "Net Events Processed +1282159" LABELS "integration;pdes"
                  COMMAND $<TARGET_FILE:phold_ross> +p2 --synch=3 ${_ross} --remote=0.5 --end=1000 --extramem=100000 --check-gvt=1)
foreach(synch 1 2 3 4)
  roam_program_test(phold_ross.synch${synch}.p2.remote0.5_end100 REGEX "Net Events Processed +128466" LABELS "integration;pdes"
                    COMMAND $<TARGET_FILE:phold_ross> +p2 --synch=${synch} ${_ross} --remote=0.5 --end=100 --check-gvt=1)
endforeach()
roam_program_test(phold_ross.synch3.p4.lps4 REGEX "Net Events Processed +405" LABELS "integration;pdes"
                  COMMAND $<TARGET_FILE:phold_ross> +p4 --synch=3 --nlp=1 --start-events=2 --lookahead=0.1 --mean=1.0 --remote=0.5 --end=50 --lps-per-chare=1)
roam_program_test(phold_ross.help REGEX "--remote +share of events sent to a random LP" LABELS "integration;pdes"
                  COMMAND $<TARGET_FILE:phold_ross> --help)
roam_program_test(phold_ross.unknown_option RC 2 REGEX "unknown option --bogus" LABELS "integration;pdes"
                  COMMAND $<TARGET_FILE:phold_ross> +p1 --synch=3 --bogus=1)
roam_program_test(phold_ross.bad_number RC 2 REGEX "--end=soon: not a number" LABELS "integration;pdes"
                  COMMAND $<TARGET_FILE:phold_ross> +p1 --synch=3 --end=soon)
roam_program_test(phold_ross.no_synch RC 2 REGEX "--synch=0: use 1 \\(sequential\\)" LABELS "integration;pdes"
                  COMMAND $<TARGET_FILE:phold_ross> +p1)
if(ROAM_HAVE_MPI AND ROAM_MPIRUN)
  roam_program_test(mpi.phold_ross.synch3.n2 REGEX "Net Events Processed +128466" LABELS "integration;pdes;mpi"
                    COMMAND ${ROAM_MPIRUN} ${ROAM_MPIRUN_FLAGS} -n 2 $<TARGET_FILE:phold_ross> +ppn 1 --synch=3 ${_ross} --remote=0.5 --end=100)
  if(ROAM_MPI_TEST_ENVIRONMENT)
    set_tests_properties(mpi.phold_ross.synch3.n2 PROPERTIES ENVIRONMENT "${ROAM_MPI_TEST_ENVIRONMENT}")
  endif()
endif()
