# check_default_archs.cmake - the portable default list of GPU architectures,
# checked where the build under test names its own (CI builds fewer
# architectures to stay quick): configure a scratch build with no
# CMAKE_CUDA_ARCHITECTURES, so cmake/CubenchCudaArchs.cmake picks the
# default from nvcc, build test_build_archs alone (its only GPU code is the
# engine's tiny probe kernel) and run it: it holds the default to SASS for
# every sm_XY >= 75 nvcc lists plus PTX of the newest.
#   cmake -DSRC=<source dir> -DWORK=<scratch dir> -DNVCC=<nvcc> -P check_default_archs.cmake
foreach(var SRC WORK NVCC)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_default_archs: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${SRC}" -B "${WORK}" -G Ninja -DCMAKE_BUILD_TYPE=Release
          -DCMAKE_CUDA_COMPILER=${NVCC} -UCMAKE_CUDA_ARCHITECTURES
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure with the default architectures failed (${rc}):\n${out}\n${err}")
endif()
string(REGEX MATCH "cubench: CUDA [^\n]*" line "${out}")
message(STATUS "${line}")
if(NOT line MATCHES "\\(default: ")
  message(FATAL_ERROR "the scratch build did not take the default list: ${line}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${WORK}" --target test_build_archs
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building test_build_archs failed (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND "${WORK}/tests/test_build_archs" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}${err}")
file(REMOVE_RECURSE "${WORK}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "test_build_archs on the default list failed (${rc})")
endif()
if(NOT out MATCHES "default build: SASS")
  message(FATAL_ERROR "test_build_archs did not check the default list")
endif()
