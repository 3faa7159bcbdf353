# Build once per class. Every build compiles the fixed parts (the common harness,
# each lab's harness, the programs' and tests' own sources) as libraries, and writes
# where they are to lab_prebuilt.cmake. A build configured with
# -DLAB_PREBUILT=<such a build> imports them from there instead: it compiles only
# the student's files (labN_impl) and links, so a class of submissions pays for the
# fixed parts once. The other build must be of this source tree with the same
# compilers, flags and architectures (checked here), and must be built first.
set(LAB_PREBUILT "" CACHE PATH "a build of this tree whose fixed parts this build links (default: none, compile them)")
set(LAB_PREBUILT_RECORD lab_prebuilt.cmake)
# What must match for the student's objects to link with the other build's.
set(LAB_PREBUILT_SAME CMAKE_SOURCE_DIR CMAKE_BUILD_TYPE CMAKE_CUDA_ARCHITECTURES
    CMAKE_CUDA_COMPILER CMAKE_CXX_COMPILER CMAKE_CUDA_FLAGS CMAKE_CXX_FLAGS
    CMAKE_CUDA_FLAGS_RELEASE CMAKE_CXX_FLAGS_RELEASE)

if(LAB_PREBUILT)
  get_filename_component(LAB_PREBUILT_DIR "${LAB_PREBUILT}" ABSOLUTE)
  set(record ${LAB_PREBUILT_DIR}/${LAB_PREBUILT_RECORD})
  if(NOT EXISTS ${record})
    message(FATAL_ERROR "LAB_PREBUILT=${LAB_PREBUILT}: no ${record}; give a build of this "
                        "tree configured without LAB_PREBUILT")
  endif()
  include(${record})
  foreach(var IN LISTS LAB_PREBUILT_SAME)
    if(NOT "${${var}}" STREQUAL "${LAB_PREBUILT_${var}}")
      message(FATAL_ERROR "LAB_PREBUILT=${LAB_PREBUILT}: it has ${var}='${LAB_PREBUILT_${var}}', "
                          "this build '${${var}}'; configure both alike")
    endif()
  endforeach()
  # A build that imports records nothing: a third build must not chain onto it.
  file(REMOVE ${CMAKE_BINARY_DIR}/${LAB_PREBUILT_RECORD})
  message(STATUS "cuda-labs: fixed parts linked from ${LAB_PREBUILT_DIR}; only the "
                 "student's files are compiled here")
else()
  set_property(GLOBAL PROPERTY LAB_PREBUILT_TEXT "")
endif()

# The other build's <what> for <name>, or an error saying it lacks it.
function(_lab_prebuilt_get name what out)
  string(MAKE_C_IDENTIFIER "${name}" key)  # GTest::gtest
  if(NOT DEFINED LAB_PREBUILT_${key})
    message(FATAL_ERROR "LAB_PREBUILT=${LAB_PREBUILT} has no ${what} ${name}: configure it "
                        "with this build's LAB_ONLY and LAB_IMPL kind (reference or not)")
  endif()
  set(${out} "${LAB_PREBUILT_${key}}" PARENT_SCOPE)
endfunction()

function(_lab_prebuilt_record name value)
  string(MAKE_C_IDENTIFIER "${name}" key)
  set_property(GLOBAL APPEND_STRING PROPERTY LAB_PREBUILT_TEXT "set(LAB_PREBUILT_${key} \"${value}\")\n")
endfunction()

# lab_fixed_library(<name> SOURCES <src>... [INCLUDE <dir>...] [LINK <lib>...]):
# a static library of fixed sources; imported from LAB_PREBUILT when set. <lib>s are
# linked PUBLIC either way (a lab's harness names the student's <lab>_impl there).
function(lab_fixed_library name)
  cmake_parse_arguments(A "" "" "SOURCES;INCLUDE;LINK" ${ARGN})
  if(LAB_PREBUILT)
    _lab_prebuilt_get(${name} library file)
    # Its languages, so that a program linking it gets the CUDA runtime as before.
    set(languages CXX)
    if(A_SOURCES MATCHES "\\.cu(;|$)")
      list(APPEND languages CUDA)
    endif()
    add_library(${name} STATIC IMPORTED GLOBAL)
    set_target_properties(${name} PROPERTIES IMPORTED_LOCATION "${file}"
                          IMPORTED_LINK_INTERFACE_LANGUAGES "${languages}"
                          INTERFACE_LINK_LIBRARIES "${A_LINK}")
    return()
  endif()
  add_library(${name} STATIC ${A_SOURCES})
  target_include_directories(${name} PUBLIC ${A_INCLUDE})
  target_link_libraries(${name} PUBLIC ${A_LINK})
  _lab_prebuilt_record(${name} "$<TARGET_FILE:${name}>")
endfunction()

# lab_program(<name> SOURCES <src>... [LINK <lib>...] [INCLUDE <dir>...]
#             [DEFINES <def>...]): an executable whose own sources are compiled
# into <name>_objects (INCLUDE and DEFINES apply to them), imported from
# LAB_PREBUILT when set; either way it is linked here, against this build's <lib>s.
function(lab_program name)
  cmake_parse_arguments(A "" "" "SOURCES;LINK;INCLUDE;DEFINES" ${ARGN})
  if(LAB_PREBUILT)
    _lab_prebuilt_get(${name}_objects program objects)
    add_library(${name}_objects OBJECT IMPORTED)
    set_target_properties(${name}_objects PROPERTIES IMPORTED_OBJECTS "${objects}")
  else()
    add_library(${name}_objects OBJECT ${A_SOURCES})
    target_include_directories(${name}_objects PRIVATE ${A_INCLUDE})
    target_compile_definitions(${name}_objects PRIVATE ${A_DEFINES})
    target_link_libraries(${name}_objects PRIVATE ${A_LINK})
    _lab_prebuilt_record(${name}_objects "$<TARGET_OBJECTS:${name}_objects>")
  endif()
  add_executable(${name} $<TARGET_OBJECTS:${name}_objects>)
  target_link_libraries(${name} PRIVATE ${A_LINK})
  # Linked from objects alone, CMake cannot tell the language: C++, the one it
  # chose for every program (its libraries hold C++), which adds the CUDA runtime.
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
endfunction()

# lab_prebuilt_write(): the record of this build's fixed parts and of what must
# match (LAB_PREBUILT_SAME), written at generate time; call once, after every lab.
function(lab_prebuilt_write)
  if(LAB_PREBUILT)
    return()
  endif()
  get_property(text GLOBAL PROPERTY LAB_PREBUILT_TEXT)
  foreach(var IN LISTS LAB_PREBUILT_SAME)
    # A bracket argument: a list (two architectures) stays one value.
    string(APPEND text "set(LAB_PREBUILT_${var} [==[${${var}}]==])\n")
  endforeach()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/${LAB_PREBUILT_RECORD}
       CONTENT "# Written by cmake/LabPrebuilt.cmake: this build's fixed parts.\n${text}")
endfunction()
