# Test plumbing shared by every lab: GoogleTest, dataset fixtures, labelled tests.
include(GoogleTest)
# The dataset generators need numpy: take the Python of the repository's virtual
# environment (scripts/setup.sh makes .venv), not the first python3 on the PATH, which
# may lack it. -DPython3_EXECUTABLE=... still chooses; without .venv (a grading runner, a
# GPU machine provisioned with Debian's packages) the search is CMake's usual one.
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS ${CMAKE_SOURCE_DIR}/.venv/bin/python3)
  set(Python3_EXECUTABLE ${CMAKE_SOURCE_DIR}/.venv/bin/python3)
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# GoogleTest from the system: the installed package, else the source tree that
# Debian's googletest package ships (or LAB_GTEST_SOURCE_DIR). Never downloaded.
# A LAB_PREBUILT build that compiled it from source (recorded as GTest__gtest) lends
# that library, the one its test objects were compiled against, with the threads
# googletest's own CMakeLists links.
if(LAB_PREBUILT AND DEFINED LAB_PREBUILT_GTest__gtest)
  lab_fixed_library(GTest::gtest LINK Threads::Threads)
else()
  find_package(GTest QUIET)
endif()
if(NOT TARGET GTest::gtest)
  set(LAB_GTEST_SOURCE_DIR "/usr/src/googletest" CACHE PATH "GoogleTest sources")
  if(NOT EXISTS ${LAB_GTEST_SOURCE_DIR}/CMakeLists.txt)
    message(FATAL_ERROR "GoogleTest not found: install libgtest-dev (Debian/Ubuntu) "
                        "or set LAB_GTEST_SOURCE_DIR to a googletest source tree.")
  endif()
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory(${LAB_GTEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/_deps/googletest EXCLUDE_FROM_ALL)
  if(NOT TARGET GTest::gtest)  # GoogleTest 1.11 and newer define it themselves
    add_library(GTest::gtest ALIAS gtest)
  endif()
  _lab_prebuilt_record(GTest::gtest "$<TARGET_FILE:gtest>")
endif()

set(LAB_DATA_ROOT ${CMAKE_BINARY_DIR}/datasets)
# What every test that runs on a GPU (lab tests, sanitize tests) asks of ctest's resource
# allocation: one slot of one GPU. ctest ignores it without --resource-spec-file; with a
# spec (scripts/gpu_resource_spec.py) N slots, on N GPUs or on one, run N such tests at
# once, each on the GPU ctest gives it (labs/common/include/labs/ctest_gpu.hpp). Timed
# tests stay RUN_SERIAL: they still have the machine to themselves.
set(LAB_GPU_RESOURCE_GROUPS "gpus:1")
# The environment of tests that measure nothing (correctness, sanitize). Each starts a
# CUDA process, and the driver builds a context's hardware queues under a lock that the
# whole machine shares: on a host of several GPUs graded at once, starting processes
# becomes the limit. One queue instead of eight makes a context several times cheaper
# (CONTRIBUTING.md, "What limits the speed"); only timed code would miss the streams'
# concurrency, and timed tests keep the default.
set(LAB_UNTIMED_TEST_ENV "CUDA_DEVICE_MAX_CONNECTIONS=1")
include(${CMAKE_CURRENT_LIST_DIR}/LabPolicy.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/LabSanitize.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/LabNoGpuSummary.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/LabCalls.cmake)

# lab_require_generator(): stops configure, in one line, when the dataset generator
# cannot run with Python3_EXECUTABLE (numpy missing: scripts/setup.sh was not run);
# otherwise the build would take many minutes and every lab test then fail "Not Run".
# The Python found is dropped from the cache, so the next configure looks again and
# finds the .venv that scripts/setup.sh makes. Once per configure.
function(lab_require_generator)
  get_property(checked GLOBAL PROPERTY LAB_GENERATOR_CHECKED)
  if(checked)
    return()
  endif()
  set_property(GLOBAL PROPERTY LAB_GENERATOR_CHECKED TRUE)
  execute_process(COMMAND ${Python3_EXECUTABLE} -m datasets.generate --help
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} RESULT_VARIABLE status
                  OUTPUT_QUIET ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    string(STRIP "${error}" error)
    string(REGEX REPLACE ".*\n" "" why "${error}")  # the last line: the reason
    set(python ${Python3_EXECUTABLE})
    unset(Python3_EXECUTABLE CACHE)
    unset(_Python3_EXECUTABLE CACHE)
    # The leading space keeps CMake from wrapping the line.
    message(FATAL_ERROR " cuda-labs: the dataset generator cannot run with ${python} (${why}): "
                        "run `bash scripts/setup.sh`, then configure again")
  endif()
endfunction()

# lab_add_datasets(<lab>): a setup test that writes the public cases of
# datasets/<lab>.json into the build tree; every test of <lab> requires it.
function(lab_add_datasets lab)
  lab_require_generator()
  add_test(NAME ${lab}.datasets
           COMMAND ${Python3_EXECUTABLE} -m datasets.generate --manifest
                   ${CMAKE_SOURCE_DIR}/datasets/${lab}.json --out ${LAB_DATA_ROOT}/${lab}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${lab}.datasets PROPERTIES FIXTURES_SETUP ${lab}_data
                       LABELS "${lab};${lab}.data" TIMEOUT 300)
endfunction()

# lab_add_gtest(<target> LAB <lab> KIND correctness|timing|reference
#               [SERIAL] [TIMEOUT s] SOURCES ... [LIBRARIES ...] [INCLUDE dir...]
#               [SANITIZE_FILTER f])
# One process per test case (gtest_discover_tests), labels <lab> and <lab>.<kind>.
# The program is a lab_program (LabPrebuilt.cmake): its objects may come from another
# build, with that build's LAB_DATA_DIR compiled in, so every test is also given
# this build's as $LAB_DATA_DIR, which the harness reads first.
# SANITIZE_FILTER: the gtest filter of small cases run under compute-sanitizer
# (LabSanitize.cmake; only with -DLAB_SANITIZE=ON).
# Timed tests, and those of a program marked SERIAL (one that reads the whole
# device's state), never share the GPU with another test (RUN_SERIAL). Every test
# asks ctest for one GPU slot (LAB_GPU_RESOURCE_GROUPS).
function(lab_add_gtest target)
  cmake_parse_arguments(T "SERIAL" "LAB;KIND;TIMEOUT;SANITIZE_FILTER" "SOURCES;LIBRARIES;INCLUDE" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  # Its student code's CUDA calls are watched under the lab's policy (LabCalls.cmake).
  lab_call_policy_source(${T_LAB} policy)
  lab_program(${target} SOURCES ${T_SOURCES} ${policy} INCLUDE ${T_INCLUDE}
              LINK ${T_LIBRARIES} labs_test_main GTest::gtest
              DEFINES LAB_DATA_DIR="${LAB_DATA_ROOT}/${T_LAB}")
  lab_wrap_student_calls(${target} ${T_LAB})
  set(serial FALSE)
  set(env "LAB_DATA_DIR=${LAB_DATA_ROOT}/${T_LAB}")
  if(T_SERIAL OR NOT T_KIND STREQUAL "correctness")
    set(serial TRUE)
  endif()
  if(T_KIND STREQUAL "correctness")
    list(APPEND env ${LAB_UNTIMED_TEST_ENV})
  endif()
  # Only our own marker or exit code 77 mean "skipped" (no GPU); gtest's default
  # "[  SKIPPED ]" pattern could be printed by student code.
  # POST_BUILD (the default): the program lists its cases as it is linked. The
  # grader links a lab only after its objects passed the object check (build.py).
  # PRE_TEST would list at every ctest run, and CMake 4.4 then runs each test
  # through a CMake script instead of the program with --gtest_filter.
  gtest_discover_tests(${target} TEST_PREFIX "${T_LAB}." NO_PRETTY_VALUES
    DISCOVERY_TIMEOUT 60 TEST_LIST ${target}_TESTS
    PROPERTIES TIMEOUT ${T_TIMEOUT} SKIP_RETURN_CODE 77 FIXTURES_REQUIRED ${T_LAB}_data RUN_SERIAL ${serial})
  # Set once the tests exist: PROPERTIES cannot carry a list (two labels, two
  # fixtures), and there it would add to gtest's skip pattern instead of replacing
  # it. The second fixture brings in the no-GPU summary (LabNoGpuSummary.cmake).
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${script} "if(${target}_TESTS)\n  set_tests_properties(\${${target}_TESTS} "
                       "PROPERTIES LABELS \"${T_LAB};${T_LAB}.${T_KIND}\" "
                       "FIXTURES_REQUIRED \"${T_LAB}_data;${LAB_GPU_FIXTURE}\" "
                       "ENVIRONMENT \"${env}\" "
                       "RESOURCE_GROUPS \"${LAB_GPU_RESOURCE_GROUPS}\" "
                       "SKIP_REGULAR_EXPRESSION \"cuda-labs: skipped: no CUDA device\")\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
  if(T_SANITIZE_FILTER)
    lab_add_sanitize_tests(${target} ${T_LAB} "${T_SANITIZE_FILTER}" ${T_TIMEOUT})
  endif()
endfunction()

# lab_add_tests(<lab> [DATASETS] [REFERENCE_TEST]): a lab's test programs, from its
# tests/ folder, linked with <lab>_harness: <lab>_correctness_test,
# <lab>_timing_test and, with REFERENCE_TEST and only when LAB_IMPL is the
# reference, <lab>_reference_test. From the lab's lab.json: "timeouts_s" (a test's
# timeout by kind, default 60 s for correctness and 120 s for the others),
# "sanitize" "filter" (the correctness cases run under compute-sanitizer) and
# "bars" (<lab>_bars.hpp, for the timing and reference tests).
# DATASETS: the lab reads dataset files (lab_add_datasets), and its correctness
# test gets the case table (lab_case_header).
function(lab_add_tests lab)
  cmake_parse_arguments(A "DATASETS;REFERENCE_TEST" "" "" ${ARGN})
  set(default_correctness 60)
  set(default_timing 120)
  set(default_reference 120)
  foreach(kind correctness timing reference)
    lab_policy_get(timeout_${kind} timeouts_s ${kind})
    if(NOT timeout_${kind})
      set(timeout_${kind} ${default_${kind}})
    endif()
  endforeach()
  lab_policy_get(sanitize_filter sanitize filter)
  if(NOT sanitize_filter)
    set(sanitize_filter "")
  endif()
  if(A_DATASETS)
    lab_add_datasets(${lab})
  endif()
  set(cases "")
  if(A_DATASETS)
    lab_case_header(${lab} cases)
  endif()
  lab_bars_header(${lab} bars)
  # A test holds host code (.cpp, compiled by the host compiler alone: nvcc would parse
  # GoogleTest for the device too) unless it defines kernels of its own (.cu).
  foreach(kind correctness timing reference)
    set(${kind}_source tests/${kind}_test.cpp)
    if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${${kind}_source})
      set(${kind}_source tests/${kind}_test.cu)
    endif()
  endforeach()
  lab_add_gtest(${lab}_correctness_test LAB ${lab} KIND correctness
                TIMEOUT ${timeout_correctness} SOURCES ${correctness_source}
                LIBRARIES ${lab}_harness INCLUDE ${cases} SANITIZE_FILTER "${sanitize_filter}")
  lab_add_gtest(${lab}_timing_test LAB ${lab} KIND timing TIMEOUT ${timeout_timing}
                SOURCES ${timing_source} LIBRARIES ${lab}_harness INCLUDE ${bars})
  if(A_REFERENCE_TEST AND LAB_IMPL_IS_REFERENCE)
    lab_add_gtest(${lab}_reference_test LAB ${lab} KIND reference TIMEOUT ${timeout_reference}
                  SOURCES ${reference_source} LIBRARIES ${lab}_harness INCLUDE ${bars})
  endif()
endfunction()

# lab_case_header(<lab> <var>): writes <lab>_cases.hpp from datasets/<lab>.json
# (an array `k_cases` of harness::DatasetCase) and sets <var> to its folder.
function(lab_case_header lab var)
  set(manifest ${CMAKE_SOURCE_DIR}/datasets/${lab}.json)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${manifest})
  file(READ ${manifest} json)
  string(JSON count LENGTH "${json}" cases)
  math(EXPR last "${count} - 1")
  set(rows "")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" cases ${i} name)
    string(JSON n GET "${json}" cases ${i} n)
    string(JSON dist GET "${json}" cases ${i} distribution)
    string(APPEND rows "    {\"${name}\", ${n}LL, \"${dist}\"},\n")
  endforeach()
  set(dir ${CMAKE_BINARY_DIR}/generated/${lab})
  file(CONFIGURE OUTPUT ${dir}/${lab}_cases.hpp CONTENT
"// Generated from datasets/${lab}.json by CMake: edit the manifest, not this file.
#pragma once
#include \"labs/dataset_case.hpp\"

namespace ${lab} {
inline constexpr harness::DatasetCase k_cases[] = {
${rows}};
}  // namespace ${lab}
")
  set(${var} ${dir} PARENT_SCOPE)
endfunction()

# lab_policy_student_files(<var> <lab> <key> <student files>): the files lab.json's
# objects.<key> names (an array's items or an object's keys), each checked to be
# one of the lab's student files.
function(lab_policy_student_files var lab key students)
  lab_policy_get(json objects ${key})
  set(files "")
  if(json)
    string(JSON type TYPE "${json}")
    string(JSON count LENGTH "${json}")
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      if(type STREQUAL "OBJECT")
        string(JSON f MEMBER "${json}" ${i})
      else()
        string(JSON f GET "${json}" ${i})
      endif()
      if(NOT f IN_LIST students)
        message(FATAL_ERROR "${lab}: lab.json's objects.${key} names ${f}, which is not "
                            "one of the STUDENT files of lab_add_harness")
      endif()
      list(APPEND files ${f})
    endforeach()
  endif()
  set(${var} ${files} PARENT_SCOPE)
endfunction()

# lab_add_harness(<lab> <folder> STUDENT <file>... HARNESS <source>... [LINK <lib>...])
# <lab>_impl: the student's files from LAB_IMPL/<folder>, compiled against the
# contract header in this folder, the only objects compiled per student with
# LAB_PREBUILT; <lab>_harness: the lab's fixed parts around it (lab_fixed_library).
# The student's files that lab.json's "objects" "relocatable" names (kernels that
# launch kernels) go into <lab>_impl_rdc, which <lab>_impl links: compiled with
# relocatable device code and device-linked there with the device runtime, so that
# the other files stay whole-program (same code, same timings) and cannot launch
# from the device. The object check reads both targets' objects.
# Sets <lab>_STUDENT_SOURCES for checks on the student's files.
function(lab_add_harness lab folder)
  cmake_parse_arguments(A "" "" "STUDENT;HARNESS;LINK" ${ARGN})
  lab_policy_student_files(rdc_files ${lab} relocatable "${A_STUDENT}")
  set(whole_files ${A_STUDENT})
  if(rdc_files)
    list(REMOVE_ITEM whole_files ${rdc_files})
  endif()
  lab_student_sources(${folder} student ${whole_files})
  add_library(${lab}_impl STATIC ${student})
  target_include_directories(${lab}_impl PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${lab}_impl PUBLIC CUDA::cudart)
  if(rdc_files)
    lab_student_sources(${folder} rdc ${rdc_files})
    add_library(${lab}_impl_rdc STATIC ${rdc})
    target_include_directories(${lab}_impl_rdc PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    set_target_properties(${lab}_impl_rdc PROPERTIES CUDA_SEPARABLE_COMPILATION ON
                          CUDA_RESOLVE_DEVICE_SYMBOLS ON)
    # The device link adds the device runtime, cudadevrt, itself (CMAKE_CUDA_RUNTIME_LIBRARY).
    target_link_libraries(${lab}_impl_rdc PUBLIC CUDA::cudart)
    target_link_libraries(${lab}_impl PUBLIC ${lab}_impl_rdc)
    list(APPEND student ${rdc})
  endif()
  lab_fixed_library(${lab}_harness SOURCES ${A_HARNESS}
                    LINK ${lab}_impl labs_common ${A_LINK})
  # A student file that lab.json's objects.libraries lets use a library (lab6's
  # thrust_pipeline.cu: Thrust) is compiled with CCCL's NVTX ranges off: their
  # injection reads the environment and loads a library, which the object check refuses.
  lab_policy_student_files(library_files ${lab} libraries "${A_STUDENT}")
  foreach(f IN LISTS library_files)
    lab_student_sources(${folder} library_file ${f})
    set_source_files_properties(${library_file} PROPERTIES COMPILE_DEFINITIONS CCCL_DISABLE_NVTX)
  endforeach()
  set(${lab}_STUDENT_SOURCES ${student} PARENT_SCOPE)
endfunction()

# lab_write_bad_inputs(<var> <python>): runs <python> at configure time with `d`, a
# fresh folder, and `struct` in scope (it writes the bad input files there), and
# sets <var> to that folder, for lab_rejects.
function(lab_write_bad_inputs var python)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/bad_inputs)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import struct, sys, pathlib
d = pathlib.Path(sys.argv[1]); d.mkdir(parents=True, exist_ok=True)
${python}" ${dir} COMMAND_ERROR_IS_FATAL ANY)
  set(${var} ${dir} PARENT_SCOPE)
endfunction()

# lab_expect(<lab> <program> <name> <status> <regex> <arg>...): a test of the harness,
# not of the student (label `harness`): harness.<lab>.<name> runs <program> <arg>...,
# which must exit <status> and print a message matching <regex>. The regex travels
# in a file: a ';' in it would split the test's command line.
function(lab_expect lab program name status expected)
  set(file ${CMAKE_CURRENT_BINARY_DIR}/expected/${name}.regex)
  file(WRITE ${file} "${expected}")
  add_test(NAME harness.${lab}.${name}
           COMMAND ${CMAKE_COMMAND} -DSTATUS=${status} -DEXPECTED_FILE=${file}
                   -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/LabExpect.cmake -- $<TARGET_FILE:${program}> ${ARGN})
  set_tests_properties(harness.${lab}.${name} PROPERTIES LABELS harness)
endfunction()

# lab_rejects(<lab> <program> <name> <regex> <arg>...): <program> given bad input
# (no GPU needed) must print a message matching <regex> and exit 2 (kExitUsage,
# labs/common/include/labs/program.hpp): test harness.<lab>.rejects_<name>.
function(lab_rejects lab program name expected)
  lab_expect(${lab} ${program} rejects_${name} 2 "${expected}" ${ARGN})
endfunction()

# lab_rejects_bad_files(<lab> <program> <dir>): the answers of a program that reads
# --data (through labs/common/src/dataset.cpp) to a file that is missing, truncated,
# or shorter than --n: tests harness.<lab>.rejects_missing_file, rejects_truncated_file
# and rejects_wrong_size. <dir> is lab_write_bad_inputs's folder; it must hold
# eight.bin, 8 values the lab accepts. truncated.bin, 10 bytes, is written here.
function(lab_rejects_bad_files lab program dir)
  file(WRITE ${dir}/truncated.bin "10 bytes!\n")
  lab_rejects(${lab} ${program} missing_file "missing.bin: does not exist; generate it"
              --data ${dir}/missing.bin)
  lab_rejects(${lab} ${program} truncated_file
              "truncated.bin: 10 bytes is not a whole number of 4-byte values"
              --data ${dir}/truncated.bin)
  lab_rejects(${lab} ${program} wrong_size "eight.bin: holds 8 values, expected 9 \\(truncated"
              --data ${dir}/eight.bin --n 9)
endfunction()

# lab_table(<lab> <name> <program> <arg>...): one of the lab's course tables, a run of
# <program> that prints it (for the README and the student's report): test
# tables.<lab>.<name>, labels `tables` and `tables.<lab>`, never `<lab>`, so no score
# and no `ctest --preset <lab>` counts it; `ctest --preset <lab>-tables` prints them
# all. Alone on the GPU (RUN_SERIAL); skipped without one (the programs' exit 4,
# harness::kExitNoGpu), and then, as for every GPU test, the no-GPU check fails the
# run (LabNoGpuSummary.cmake); after the lab's dataset setup where it has one.
function(lab_table lab name program)
  set(test tables.${lab}.${name})
  add_test(NAME ${test} COMMAND ${program} ${ARGN})
  set(fixtures ${LAB_GPU_FIXTURE})
  if(TEST ${lab}.datasets)
    list(APPEND fixtures ${lab}_data)
  endif()
  set_tests_properties(${test} PROPERTIES LABELS "tables;tables.${lab}" RUN_SERIAL TRUE
                       SKIP_RETURN_CODE 4 TIMEOUT 300 FIXTURES_REQUIRED "${fixtures}")
endfunction()
