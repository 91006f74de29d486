# Runs one libFuzzer harness for a fixed time on a copy of its seed corpus.
#   cmake -DHARNESS=<exe> -DSEED_DIR=<dir> -DWORK_DIR=<dir> -DSECONDS=<n> -P run_fuzz.cmake
# The copy (WORK_DIR/corpus) collects new inputs across runs; crash
# reproducers land in WORK_DIR/artifacts. Fails on a missing seed corpus and
# on any nonzero fuzzer exit (crash, leak, timeout, sanitizer report).
foreach(var HARNESS SEED_DIR WORK_DIR SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzz.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT IS_DIRECTORY "${SEED_DIR}")
  message(FATAL_ERROR "seed corpus ${SEED_DIR} is missing")
endif()
file(MAKE_DIRECTORY "${WORK_DIR}/corpus" "${WORK_DIR}/artifacts")
file(GLOB seeds "${SEED_DIR}/*")
file(COPY ${seeds} DESTINATION "${WORK_DIR}/corpus")
execute_process(
  COMMAND "${HARNESS}" -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
          -print_final_stats=1 -artifact_prefix=${WORK_DIR}/artifacts/
          "${WORK_DIR}/corpus"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${HARNESS} failed (exit ${rc}); reproducers in ${WORK_DIR}/artifacts")
endif()
