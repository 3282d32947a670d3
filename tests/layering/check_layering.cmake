# check_layering.cmake - build each layering probe; the MUST_FAIL ones must
# fail, and on their forbidden header (an unrelated error proves nothing);
# the MUST_BUILD controls must compile (a probe that cannot build at all
# would make every "fail" meaningless).
foreach(target IN LISTS MUST_BUILD)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "control probe ${target} does not build:\n${out}${err}")
  endif()
  message(STATUS "ok: ${target} builds")
endforeach()
foreach(entry IN LISTS MUST_FAIL)
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 target)
  list(GET parts 1 header)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "layering broken: ${target} compiled, so its layer can include ${header}")
  endif()
  string(FIND "${out}${err}" "${header}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${target} failed, but not on ${header}:\n${out}${err}")
  endif()
  message(STATUS "ok: ${target} cannot include ${header}")
endforeach()
