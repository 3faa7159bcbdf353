# CUPTI, through which every test program watches its student code's CUDA calls
# (labs/common/include/labs/student_calls.hpp): target lab_cupti. Found, in order:
#   -DLAB_CUPTI_ROOT=<folder>  a folder holding include/cupti.h and lib/ (or lib64/) libcupti.so*;
#   the toolkit's              CUDA::cupti (extras/CUPTI), when FindCUDAToolkit found it;
#   the Python package         nvidia-cuda-cupti of Python3_EXECUTABLE (requirements.lock:
#                              PyPI ships CUPTI for toolkits without extras/, CI's among them).
# Its major version must be the toolkit's. The library is copied next to the programs
# (bin/), the folder the grader's sandbox shows every test, and the programs find it there.
set(LAB_CUPTI_ROOT "" CACHE PATH
    "a folder with CUPTI's include/ and lib/ (default: the toolkit's, else the Python package nvidia-cuda-cupti)")

if(LAB_CUPTI_ROOT)
  set(cupti_from "LAB_CUPTI_ROOT=${LAB_CUPTI_ROOT}")
  set(cupti_include ${LAB_CUPTI_ROOT}/include)
  file(GLOB cupti_library ${LAB_CUPTI_ROOT}/lib/libcupti.so* ${LAB_CUPTI_ROOT}/lib64/libcupti.so*)
elseif(TARGET CUDA::cupti)
  set(cupti_from "the CUDA toolkit")
  set(cupti_include ${CUDAToolkit_CUPTI_INCLUDE_DIR})
  get_target_property(cupti_library CUDA::cupti IMPORTED_LOCATION)
else()
  set(cupti_from "the Python package nvidia-cuda-cupti of ${Python3_EXECUTABLE}")
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c [[
import importlib.metadata as m
files = [m.distribution("nvidia-cuda-cupti").locate_file(f) for f in m.files("nvidia-cuda-cupti") or ()]
print(next(str(f.parent) for f in files if f.name == "cupti.h"), end=";")
print(next(str(f) for f in files if f.name.startswith("libcupti.so")), end="")
]]
    OUTPUT_VARIABLE cupti_found RESULT_VARIABLE failed ERROR_QUIET)
  if(failed)
    set(cupti_found "")
  endif()
  list(GET cupti_found 0 cupti_include)
  list(GET cupti_found -1 cupti_library)
endif()
list(GET cupti_library 0 cupti_library)
if(NOT EXISTS "${cupti_include}/cupti.h" OR NOT EXISTS "${cupti_library}")
  message(FATAL_ERROR "CUPTI not found in ${cupti_from}: the test programs need it to watch "
                      "student code's CUDA calls. Install the toolkit's CUPTI (extras/CUPTI), "
                      "or `pip install nvidia-cuda-cupti==${CUDAToolkit_VERSION_MAJOR}.*` "
                      "(scripts/setup.sh does, into .venv), or give -DLAB_CUPTI_ROOT=<folder "
                      "with include/cupti.h and lib/libcupti.so*>")
endif()
file(STRINGS ${cupti_include}/cupti_version.h cupti_version REGEX "^#define CUPTI_API_VERSION [0-9]+")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" cupti_version "${cupti_version}")
math(EXPR cupti_major "${cupti_version} / 10000")
if(NOT cupti_major EQUAL CUDAToolkit_VERSION_MAJOR)
  message(FATAL_ERROR "CUPTI ${cupti_major} (CUPTI_API_VERSION ${cupti_version}, from ${cupti_from}) "
                      "does not match CUDA ${CUDAToolkit_VERSION}: its callback ids would name "
                      "other functions. Give CUPTI ${CUDAToolkit_VERSION_MAJOR} (-DLAB_CUPTI_ROOT=...)")
endif()

# Under its soname, the name the programs ask the loader for.
set(cupti_copy ${CMAKE_BINARY_DIR}/bin/libcupti.so.${cupti_major})
file(REAL_PATH ${cupti_library} cupti_real)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
file(COPY_FILE ${cupti_real} ${cupti_copy} ONLY_IF_DIFFERENT)
add_library(lab_cupti SHARED IMPORTED GLOBAL)
set_target_properties(lab_cupti PROPERTIES IMPORTED_LOCATION ${cupti_copy}
                      INTERFACE_INCLUDE_DIRECTORIES ${cupti_include})
# VERBOSE: a student configures often; `cmake --log-level=VERBOSE` shows where CUPTI came from.
message(VERBOSE "cuda-labs: CUPTI ${cupti_version} from ${cupti_from}, copied to ${cupti_copy}")
