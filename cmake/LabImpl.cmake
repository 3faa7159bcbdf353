# Resolve LAB_IMPL to a folder holding one subfolder per lab (labN_topic/).
# An empty one (-DLAB_IMPL=) would resolve to the repository itself: refused.
string(STRIP "${LAB_IMPL}" _lab_impl)
if(_lab_impl STREQUAL "")
  message(FATAL_ERROR "LAB_IMPL is empty: give skeletons, solutions, or your folder, "
                      "e.g. -DLAB_IMPL=skeletons.")
endif()
if(LAB_IMPL STREQUAL "skeletons" OR LAB_IMPL STREQUAL "solutions")
  set(LAB_IMPL_DIR ${CMAKE_SOURCE_DIR}/${LAB_IMPL})
else()
  get_filename_component(LAB_IMPL_DIR "${LAB_IMPL}" ABSOLUTE BASE_DIR ${CMAKE_SOURCE_DIR})
endif()
if(LAB_IMPL STREQUAL "solutions" AND NOT IS_DIRECTORY "${LAB_IMPL_DIR}")
  message(FATAL_ERROR "LAB_IMPL=solutions: this repository has no reference solutions "
                      "(a student repository). Build your own work with LAB_IMPL=skeletons.")
endif()
if(NOT IS_DIRECTORY "${LAB_IMPL_DIR}")
  message(FATAL_ERROR "LAB_IMPL='${LAB_IMPL}': no such folder (${LAB_IMPL_DIR}). "
                      "Use skeletons, solutions, or a folder laid out like skeletons/.")
endif()
# The reference-only bars (labN.reference) are registered only for the solutions.
get_filename_component(_solutions ${CMAKE_SOURCE_DIR}/solutions REALPATH)
get_filename_component(_impl ${LAB_IMPL_DIR} REALPATH)
if(_impl STREQUAL _solutions)
  set(LAB_IMPL_IS_REFERENCE ON)
else()
  set(LAB_IMPL_IS_REFERENCE OFF)
endif()
# LAB_IMPL lives in the build's cache (the student preset does not set it, so a
# student's -DLAB_IMPL=/their/copy holds for every later `cmake --preset student`):
# say every configure which folder that is and how to change it.
if(LAB_IMPL STREQUAL "skeletons")
  message(STATUS "cuda-labs: labs build against ${LAB_IMPL_DIR} "
                 "(LAB_IMPL=skeletons; -DLAB_IMPL=/path/to/your/copy to build another folder)")
else()
  message(STATUS "cuda-labs: labs build against ${LAB_IMPL_DIR} "
                 "(LAB_IMPL=${LAB_IMPL}, kept in this build's cache; -DLAB_IMPL=skeletons "
                 "to go back)")
endif()

# lab_student_sources(<lab> <out-var> <file>...): the student's files for <lab>,
# with a clear error naming the missing one.
function(lab_student_sources lab out)
  set(files "")
  foreach(f IN LISTS ARGN)
    set(path ${LAB_IMPL_DIR}/${lab}/${f})
    if(NOT EXISTS ${path})
      message(FATAL_ERROR "${lab}: ${path} is missing. A LAB_IMPL folder must hold "
                          "${lab}/${f} (copy it from skeletons/${lab}/).")
    endif()
    list(APPEND files ${path})
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()
