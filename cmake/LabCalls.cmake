# The CUDA calls a lab's student code may make, checked while it runs
# (labs/common/include/labs/student_calls.hpp): every lab's, labs/common/calls.json,
# and the lab's own, its lab.json's "runtime_calls" "allowed".
include(${CMAKE_CURRENT_LIST_DIR}/LabCupti.cmake)
get_filename_component(_lab_nm_dir "${CMAKE_NM}" DIRECTORY)
find_program(LAB_CXXFILT c++filt HINTS ${_lab_nm_dir} REQUIRED
             DOC "c++filt, which names the student functions the test programs wrap")
set(LAB_COMMON_CALLS ${CMAKE_SOURCE_DIR}/labs/common/calls.json)

# _lab_json_strings(<var> <json>): a JSON array's strings as C++ string literals, ", "-separated.
function(_lab_json_strings var json)
  set(items "")
  if(json)
    string(JSON count LENGTH "${json}")
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON name GET "${json}" ${i})
        list(APPEND items "\"${name}\"")
      endforeach()
    endif()
  endif()
  list(JOIN items ", " items)
  set(${var} "${items}" PARENT_SCOPE)
endfunction()

# lab_call_policy_source(<lab> <var>): writes <lab>_calls.cpp, the definition of
# harness::student_call_policy() for <lab>'s test programs, and sets <var> to it.
function(lab_call_policy_source lab var)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${LAB_COMMON_CALLS})
  file(READ ${LAB_COMMON_CALLS} common)
  string(JSON groups GET "${common}" runtime)
  string(JSON count LENGTH "${groups}")
  math(EXPR last "${count} - 1")
  set(runtime "")
  foreach(i RANGE ${last})
    string(JSON why MEMBER "${groups}" ${i})
    string(JSON names GET "${groups}" "${why}")
    _lab_json_strings(names "${names}")
    string(APPEND runtime "      // ${why}\n      ${names},\n")
  endforeach()
  lab_policy_get(own runtime_calls allowed)
  if(own)
    _lab_json_strings(own "${own}")
    string(APPEND runtime "      // ${lab}'s own (lab.json)\n      ${own},\n")
  endif()
  string(JSON driver GET "${common}" driver)
  _lab_json_strings(driver "${driver}")
  file(RELATIVE_PATH source ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/lab.json)
  set(file ${CMAKE_BINARY_DIR}/generated/${lab}/${lab}_calls.cpp)
  file(CONFIGURE OUTPUT ${file} CONTENT
"// Generated from labs/common/calls.json and ${source} (\"runtime_calls\") by CMake:
// edit those, not this file.
#include \"labs/student_calls.hpp\"

const harness::CallPolicy& harness::student_call_policy() {
  static const CallPolicy policy{
      \"${lab}\",
      {
${runtime}      },
      {${driver}}};
  return policy;
}
")
  set(${var} ${file} PARENT_SCOPE)
endfunction()

# lab_wrap_student_calls(<target> <lab>): <target>, a test program of <lab>, calls
# student code only inside a harness::StudentCall: cmake/student_wrappers.py writes
# a wrapper for each function of <lab>'s namespace that the student's objects
# (<lab>_impl, <lab>_impl_rdc) define and the harness's (<lab>_harness, <target>'s
# own objects) call, and <target> is linked with --wrap for each. The contract, the
# header the wrappers include, is the lab folder's first *.cuh (as the object check's).
function(lab_wrap_student_calls target lab)
  file(GLOB contract RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/*.cuh)
  list(SORT contract)
  list(GET contract 0 contract)
  set(student $<TARGET_FILE:${lab}_impl>)
  set(libraries ${lab}_impl ${lab}_harness ${target}_objects)
  if(TARGET ${lab}_impl_rdc)
    list(APPEND student $<TARGET_FILE:${lab}_impl_rdc>)
    list(APPEND libraries ${lab}_impl_rdc)
  endif()
  set(depends "")
  foreach(library IN LISTS libraries)
    get_target_property(imported ${library} IMPORTED)
    if(NOT imported)  # LAB_PREBUILT's are files: their paths are among the dependencies
      list(APPEND depends ${library})
    endif()
  endforeach()
  set(harness $<TARGET_FILE:${lab}_harness> $<TARGET_OBJECTS:${target}_objects>)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_student_calls)
  add_custom_command(
    OUTPUT ${out}.cpp ${out}.rsp
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/cmake/student_wrappers.py --lab ${lab}
            --contract ${contract} --nm ${CMAKE_NM} --cxxfilt ${LAB_CXXFILT}
            --student ${student} --harness ${harness} --source ${out}.cpp --flags ${out}.rsp
    DEPENDS ${CMAKE_SOURCE_DIR}/cmake/student_wrappers.py ${depends} ${student} ${harness}
    COMMAND_EXPAND_LISTS VERBATIM
    COMMENT "Wrapping the student functions ${target} calls")
  # Host code: the host compiler alone compiles it, in a fraction of nvcc's time, per student.
  target_sources(${target} PRIVATE ${out}.cpp)
  # LAB_PREBUILT's labs_common is a file without its include folder (nor CUDA's).
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/labs/common/include
                             ${CUDAToolkit_INCLUDE_DIRS})
  target_link_options(${target} PRIVATE "LINKER:@${out}.rsp")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${out}.rsp)
endfunction()
