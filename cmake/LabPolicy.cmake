# A lab's policy file, labs/labN_topic/lab.json: the one place its grading rules
# live. The grader reads it too (grader/core/lab_file.py).

# lab_policy_get(<var> <key>...): the value at <key>... in the current lab folder's
# lab.json (string(JSON GET) path), or <var>-NOTFOUND when it is not there. A
# change to the file configures again.
function(lab_policy_get var)
  set(file ${CMAKE_CURRENT_SOURCE_DIR}/lab.json)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR} has no lab.json: every lab folder needs "
                        "its policy file (see grader/core/lab_file.py)")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  file(READ ${file} json)
  string(JSON value ERROR_VARIABLE missing GET "${json}" ${ARGN})
  if(missing)
    set(value ${var}-NOTFOUND)
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()

# lab_bars_header(<lab> <var>): writes <lab>_bars.hpp from lab.json's "bars" (one
# constexpr harness::Bar per bar, its name and value, after its line saying whose
# bar it is and what it compares) into the build tree, and sets <var> to its folder.
function(lab_bars_header lab var)
  lab_policy_get(bars bars)
  set(rows "")
  if(bars)
    string(JSON count LENGTH "${bars}")
  else()
    set(count 0)
  endif()
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON name MEMBER "${bars}" ${i})
      string(JSON value GET "${bars}" ${name} value)
      string(JSON whose GET "${bars}" ${name} for)
      string(JSON what GET "${bars}" ${name} what)
      string(APPEND rows "// ${whose}: ${what}\ninline constexpr harness::Bar ${name}{\"${name}\", ${value}};\n")
    endforeach()
  endif()
  set(dir ${CMAKE_BINARY_DIR}/generated/${lab})
  file(RELATIVE_PATH source ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/lab.json)
  file(CONFIGURE OUTPUT ${dir}/${lab}_bars.hpp CONTENT
"// Generated from ${source} by CMake: edit its \"bars\", not this file.
// Each bar is a ratio measured in the same run on the same GPU.
#pragma once
#include \"labs/verdict.hpp\"

namespace ${lab} {
${rows}}  // namespace ${lab}
")
  set(${var} ${dir} PARENT_SCOPE)
endfunction()
