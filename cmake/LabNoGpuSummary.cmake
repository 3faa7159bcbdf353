# Without a GPU every lab test reports itself skipped, and ctest alone would end
# with "100% tests passed", exit 0, after checking nothing. The GPU check fixes
# that, through fixtures (a mechanism CTest has): every GPU test requires the
# fixture LAB_GPU_FIXTURE, and the check's tests are its FIXTURES_CLEANUP, so ctest
# adds them to any run that selects a GPU test (`ctest -L '^lab3'` too) and runs
# them after all of them. Each runs the GPU probe and, without a GPU, fails; the
# first prints how many GPU tests of this run were skipped and what to do
# (cmake/no_gpu_summary.py).
# ctest prints that output where the test ran, then its own summary (a line per
# skipped test, over a thousand in a full run), and last the failed tests by name: so
# the check is a few tests whose names, short lines, are the verdict and what to do,
# the last lines of the run. (A workflow step cannot print after a failed test step.)
# The others print nothing (--quiet): their names say it.
# A test preset that expects no GPU (CI) sets CUDA_LABS_EXPECT_NO_GPU=1: then they
# exit 77, their SKIP_RETURN_CODE, and read "Skipped", never "Passed". They carry no
# labN label, so the grader never grades them.
set(LAB_GPU_FIXTURE cuda_labs_gpu)
set(LAB_NO_GPU_CHECK_TESTS
    "GPU check: no CUDA GPU, so nothing was checked"
    "GPU check: run the tests on a machine with an NVIDIA GPU"
    "GPU check: without one, cmake --build --preset student compiles your code"
    "GPU check: and python3 -m grader check --impl skeletons checks the rules")

# lab_add_no_gpu_summary(<probe command>...): the tests above, with <probe> (exit 0
# with a GPU, 77 without) as the judge.
function(lab_add_no_gpu_summary)
  # The log ctest writes while it runs (it renames it LastTest.log at the end); the
  # lab tests' skip markers are counted there. Unreadable: the line has no count.
  set(log ${CMAKE_BINARY_DIR}/Testing/Temporary/LastTest.log.tmp)
  set(quiet "")
  foreach(name IN LISTS LAB_NO_GPU_CHECK_TESTS)
    add_test(NAME "${name}"
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/no_gpu_summary.py
                     --log ${log} ${quiet} -- ${ARGN})
    set_tests_properties("${name}" PROPERTIES FIXTURES_CLEANUP ${LAB_GPU_FIXTURE} LABELS summary
                         TIMEOUT 180 SKIP_RETURN_CODE 77)
    set(quiet --quiet)
  endforeach()
endfunction()
