# LAB_ONLY: which labs to build. It lives in the build's cache, so a selection made
# once holds for every later configure of that build; configure therefore checks it
# and prints it every time, so a forgotten `-DLAB_ONLY=lab3` cannot go unnoticed
# (otherwise `ctest -L '^lab1'` later finds no tests and still exits 0).
#
# lab_selection(<out-var> <lab_only> <known>...): the labs of <lab_only>, in the order
# of <known> (the labs that have a folder), or every known lab when <lab_only> is
# empty. <lab_only> may be separated by `;` (CMake's list) or `,` (the grader's
# `--labs lab3,lab1` spelling); spaces around a name are ignored. A name that is not
# a known lab stops configure with the list of known ones: a typo must not build
# nothing.
function(lab_selection out lab_only)
  set(known ${ARGN})
  string(REPLACE "," ";" requested "${lab_only}")
  set(wanted "")
  foreach(item IN LISTS requested)
    string(STRIP "${item}" item)
    if(item STREQUAL "")
      continue()
    endif()
    if(NOT item IN_LIST known)
      string(REPLACE ";" ", " known_text "${known}")
      message(FATAL_ERROR "LAB_ONLY='${lab_only}': unknown lab '${item}'. Known labs: "
                          "${known_text}. Give e.g. -DLAB_ONLY=lab1,lab3, or -DLAB_ONLY= "
                          "to build every lab.")
    endif()
    list(APPEND wanted ${item})
  endforeach()
  # Only separators (`,` or ` `): a mistake too, not a quiet "every lab".
  if(NOT wanted AND NOT lab_only STREQUAL "")
    message(FATAL_ERROR "LAB_ONLY='${lab_only}' names no lab. Give e.g. -DLAB_ONLY=lab1,lab3, "
                        "or -DLAB_ONLY= to build every lab.")
  endif()
  if(NOT wanted)
    set(${out} ${known} PARENT_SCOPE)
    return()
  endif()
  # Known order, each once: `lab3,lab1,lab3` builds lab1, lab3.
  set(chosen "")
  foreach(lab IN LISTS known)
    if(lab IN_LIST wanted)
      list(APPEND chosen ${lab})
    endif()
  endforeach()
  set(${out} ${chosen} PARENT_SCOPE)
endfunction()

# lab_selection_message(<lab_only> <chosen>...): the line configure prints every time.
function(lab_selection_message lab_only)
  string(REPLACE ";" ", " chosen_text "${ARGN}")
  if(lab_only STREQUAL "")
    message(STATUS "cuda-labs: building every lab: ${chosen_text} "
                   "(-DLAB_ONLY=lab1,lab3 for fewer)")
  else()
    message(STATUS "cuda-labs: building ${chosen_text} only (LAB_ONLY, kept in this build's "
                   "cache; -DLAB_ONLY= for all)")
  endif()
endfunction()
