# example_tests.cmake - the tests every example registers alike; included by
# examples/*/CMakeLists.txt. Each takes the example's own binary target.
#   cb_example_cpu_test(NAME TARGET REGEX ARGS...)  TARGET ARGS..., passing
#       when its output matches REGEX (label cpu)
#   cb_example_gpu_test(NAME TARGET RUN)  the example's run_gpu.sh on TARGET
#       into the folder RUN of the build tree (label gpu; its exit 77
#       without a CUDA device is ctest's skip)

function(cb_example_cpu_test name target regex)
  add_test(NAME ${name} COMMAND ${target} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS cpu PASS_REGULAR_EXPRESSION "${regex}")
endfunction()

function(cb_example_gpu_test name target run)
  add_test(NAME ${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_gpu.sh $<TARGET_FILE:${target}>
                                ${CMAKE_CURRENT_BINARY_DIR}/${run})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()
