# An example run where there is no GPU exits 77 with a clear "<name>: skipped: no GPU: <why>" line.
#   cmake -DNAME=doublify -DEXECUTABLE=build/examples/doublify -P no_gpu.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(NAME EXECUTABLE)
cubind_expect_no_gpu("${NAME}" "${EXECUTABLE}")
