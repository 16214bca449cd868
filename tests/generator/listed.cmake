# listed.cmake: a kernel C cannot call is listed, not an error (issue 13): cubind-gen succeeds,
# warns about the .cu's own kernel, binds the others of the file, and the generated header lists
# the kernel with the reason.
#
#   cmake -DGEN=cubind-gen -DFIXTURE=x.cu -DOUT_DIR=dir -DINCLUDE_DIR=runtime/include
#         -DKERNEL=name "-DREASON=regex" [-DBOUND=name;name] -P listed.cmake
cmake_minimum_required(VERSION 3.20)

get_filename_component(stem "${FIXTURE}" NAME_WE)
file(REMOVE_RECURSE "${OUT_DIR}")
execute_process(COMMAND "${GEN}" -I "${INCLUDE_DIR}" --no-cache -o "${OUT_DIR}" "${FIXTURE}"
                RESULT_VARIABLE rc ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cubind-gen failed (${rc}), expected it to list '${KERNEL}':\n${stderr}")
endif()
if(NOT stderr MATCHES "warning: kernel '${KERNEL}' gets no C functions: ${REASON}")
  message(FATAL_ERROR "no warning about '${KERNEL}' matching '${REASON}':\n${stderr}")
endif()
file(READ "${OUT_DIR}/${stem}.cubind.h" header)
string(FIND "${header}" "Kernels without C functions, and why:" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the header lists no unbound kernel:\n${header}")
endif()
string(SUBSTRING "${header}" ${at} -1 listing)
string(REGEX REPLACE "\n [*]     " " " listing "${listing}") # name and reason on one line
if(NOT listing MATCHES "\n [*]   ${KERNEL} ${REASON}")
  message(FATAL_ERROR "the listing does not give '${KERNEL}' with '${REASON}':\n${listing}")
endif()
foreach(name IN LISTS BOUND)
  if(NOT header MATCHES "cubind_status ${name}_launch\\(")
    message(FATAL_ERROR "'${name}', a kernel C can call, lost its functions:\n${header}")
  endif()
endforeach()
message(STATUS "${KERNEL} listed: ${REASON}")
