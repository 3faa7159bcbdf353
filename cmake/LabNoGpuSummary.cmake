# Without a GPU every lab test reports itself skipped, and ctest alone would end
# with "100% tests passed", exit 0, after checking nothing. One more test fixes
# that, through fixtures (a mechanism CTest has): every GPU test requires the
# fixture LAB_GPU_FIXTURE, and this test is its FIXTURES_CLEANUP, so ctest adds it
# to any run that selects a GPU test (`ctest -L '^lab3'` too) and runs it after
# all of them. It runs the GPU probe and, without a GPU, prints how many GPU
# tests of this run were skipped and what to do, and fails (cmake/no_gpu_summary.py).
# ctest prints that output where the test ran, then its own summary (a line per
# skipped test), and last the failed tests by name: so the name itself says the
# verdict and what to do. (A workflow step cannot print after a failed test step.)
# A test preset that expects no GPU (CI) sets CUDA_LABS_EXPECT_NO_GPU=1: then it
# exits 77, its SKIP_RETURN_CODE, and reads "Skipped", never "Passed". It carries
# no labN label, so the grader never grades it.
set(LAB_GPU_FIXTURE cuda_labs_gpu)
# At most as long as the labs' longest test names: ctest pads every line to the longest.
set(LAB_NO_GPU_SUMMARY_TEST
    "GPU check: without a GPU nothing was checked, run the tests on an NVIDIA GPU (output above)")

# lab_add_no_gpu_summary(<probe command>...): the test above, with <probe> (exit 0
# with a GPU, 77 without) as the judge.
function(lab_add_no_gpu_summary)
  # The log ctest writes while it runs (it renames it LastTest.log at the end); the
  # lab tests' skip markers are counted there. Unreadable: the line has no count.
  set(log ${CMAKE_BINARY_DIR}/Testing/Temporary/LastTest.log.tmp)
  add_test(NAME "${LAB_NO_GPU_SUMMARY_TEST}"
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/no_gpu_summary.py
                   --log ${log} -- ${ARGN})
  set_tests_properties("${LAB_NO_GPU_SUMMARY_TEST}" PROPERTIES
                       FIXTURES_CLEANUP ${LAB_GPU_FIXTURE} LABELS summary TIMEOUT 180
                       SKIP_RETURN_CODE 77)
endfunction()
