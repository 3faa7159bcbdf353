# CUDA architectures, chosen before project() enables CUDA (included from the top
# CMakeLists.txt before it):
#  - set CMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable) yourself
#    to override (the CI preset builds one);
#  - else the GPU that nvidia-smi sees (the `native` keyword fails where no GPU is
#    visible, so we ask nvidia-smi and fall back quietly);
#  - else the default list: sm_86 (the lab rooms' RTX 3060), sm_90 (H100) and PTX
#    for sm_90 so newer GPUs can JIT-compile it.
set(LAB_DEFAULT_CUDA_ARCHITECTURES "86-real;90")
if((NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
   AND "$ENV{CUDAARCHS}" STREQUAL "")
  find_program(LAB_NVIDIA_SMI nvidia-smi)
  set(detected "")
  if(LAB_NVIDIA_SMI)
    execute_process(
      COMMAND ${LAB_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    if(rc EQUAL 0)
      string(REPLACE "." "" caps "${caps}")
      string(REGEX MATCHALL "[0-9]+" detected "${caps}")
      list(REMOVE_DUPLICATES detected)
    endif()
  endif()
  if(detected)
    message(STATUS "cuda-labs: building for the local GPU(s): ${detected}")
    set(CMAKE_CUDA_ARCHITECTURES "${detected}" CACHE STRING "CUDA architectures")
  else()
    message(STATUS "cuda-labs: no GPU visible; building for ${LAB_DEFAULT_CUDA_ARCHITECTURES}")
    set(CMAKE_CUDA_ARCHITECTURES "${LAB_DEFAULT_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures")
  endif()
endif()
