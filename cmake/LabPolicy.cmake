# A lab's policy file, labs/labN_topic/lab.json: the one place its grading rules
# live. The grader reads it too (grader/lab_file.py).

# lab_policy_get(<var> <key>...): the value at <key>... in the current lab folder's
# lab.json (string(JSON GET) path), or <var>-NOTFOUND when it is not there. A
# change to the file configures again.
function(lab_policy_get var)
  set(file ${CMAKE_CURRENT_SOURCE_DIR}/lab.json)
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${CMAKE_CURRENT_SOURCE_DIR} has no lab.json: every lab folder needs "
                        "its policy file (see grader/lab_file.py)")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  file(READ ${file} json)
  string(JSON value ERROR_VARIABLE missing GET "${json}" ${ARGN})
  if(missing)
    set(value ${var}-NOTFOUND)
  endif()
  set(${var} "${value}" PARENT_SCOPE)
endfunction()
