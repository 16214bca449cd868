# cubin_kernels.cmake: include()d by the test scripts that need nvcc's ground truth.
#
# cubind_cubin_kernels(<out var> <readelf> <cubin>...): the kernel symbols of the cubins, each
# once: FUNC symbols whose st_other has STO_CUDA_ENTRY (0x10), "[<other>: 10]" in readelf -sW.
function(cubind_cubin_kernels out readelf)
  set(kernels "")
  foreach(cubin IN LISTS ARGN)
    execute_process(COMMAND "${readelf}" -sW "${cubin}" OUTPUT_VARIABLE table RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "readelf failed on ${cubin}")
    endif()
    string(REGEX MATCHALL "FUNC +[A-Z]+ +[A-Z]+ +\\[<other>: 10\\] +[0-9]+ +[^ \n]+" rows
           "${table}")
    foreach(row IN LISTS rows)
      string(REGEX REPLACE ".* ([^ ]+)$" "\\1" symbol "${row}")
      list(APPEND kernels "${symbol}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES kernels)
  set(${out} "${kernels}" PARENT_SCOPE)
endfunction()
