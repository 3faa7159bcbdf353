# Sanitizer mode: a lab's small correctness cases re-run under compute-sanitizer.
#
# With -DLAB_SANITIZE=ON, every lab_add_gtest(... KIND correctness SANITIZE_FILTER f)
# also registers one test per tool, labN.sanitize.<tool>, running the same program
# on the cases that the gtest filter f selects under
#   compute-sanitizer --tool <tool> --error-exitcode 86 --print-limit 5
# labelled `sanitize;labN.sanitize`. They carry no `labN` label, so the grader's
# score never counts them (`ctest -L sanitize` runs them); off by default
# because `ctest -L lab1` is a regular expression that `lab1.sanitize` would match.
# compute-sanitizer holds CUPTI, so these run without the check of student code's
# CUDA calls (LAB_CUDA_CALLS=unwatched, labs/common/src/test_main.cpp): the plain
# tests, which the score counts, have it.
option(LAB_SANITIZE "also register the labs' small correctness cases under compute-sanitizer" OFF)
set(LAB_SANITIZE_TOOLS memcheck racecheck synccheck)
set(LAB_SANITIZE_EXIT_CODE 86)

if(LAB_SANITIZE)
  find_program(LAB_COMPUTE_SANITIZER compute-sanitizer
               HINTS ${CUDAToolkit_BIN_DIR} ${CUDAToolkit_BIN_DIR}/../compute-sanitizer
               DOC "compute-sanitizer, for the sanitize tests")
  if(LAB_COMPUTE_SANITIZER)
    message(STATUS "cuda-labs: sanitize tests use ${LAB_COMPUTE_SANITIZER}")
  else()
    message(STATUS "cuda-labs: compute-sanitizer not found next to ${CUDAToolkit_BIN_DIR}: "
                   "no sanitize tests registered")
  endif()
endif()

# lab_add_sanitize_tests(<target> <lab> <gtest filter> <timeout>): the tests above;
# racecheck is 10-100x slower than a plain run, so the timeouts are ten times longer.
# A lab's other programs than <lab>_correctness_test add their name's middle:
# lab6_steps_test gives lab6.sanitize.<tool>.steps.
function(lab_add_sanitize_tests target lab filter timeout)
  if(NOT LAB_SANITIZE OR NOT LAB_COMPUTE_SANITIZER)
    return()
  endif()
  math(EXPR long_timeout "${timeout} * 10")
  string(REGEX REPLACE "^${lab}_(.*)_test$" "\\1" program ${target})
  set(suffix "")
  if(NOT program STREQUAL "correctness")
    set(suffix .${program})
  endif()
  foreach(tool IN LISTS LAB_SANITIZE_TOOLS)
    set(name ${lab}.sanitize.${tool}${suffix})
    add_test(NAME ${name}
             COMMAND ${LAB_COMPUTE_SANITIZER} --tool ${tool}
                     --error-exitcode ${LAB_SANITIZE_EXIT_CODE} --print-limit 5
                     $<TARGET_FILE:${target}> --gtest_filter=${filter})
    set_tests_properties(${name} PROPERTIES
                         LABELS "sanitize;${lab}.sanitize" TIMEOUT ${long_timeout}
                         FIXTURES_REQUIRED ${lab}_data SKIP_RETURN_CODE 77
                         RESOURCE_GROUPS ${LAB_GPU_RESOURCE_GROUPS}
                         SKIP_REGULAR_EXPRESSION "cuda-labs: skipped: no CUDA device"
                         ENVIRONMENT "LAB_KERNEL_TIMEOUT_S=${long_timeout};LAB_DATA_DIR=${LAB_DATA_ROOT}/${lab};${LAB_UNTIMED_TEST_ENV};LAB_CUDA_CALLS=unwatched")
  endforeach()
endfunction()
