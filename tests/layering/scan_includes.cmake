# scan_includes.cmake - every `#include "..."` of the product names a header
# by its bare name: a path with a folder or `..` in it reaches around the
# include directories the build exports (a layer's top folder) and so
# around the layering. Run with -DROOTS=dir;dir... ; -DEXPECT_FAIL=ON turns
# it around for the planted fixture (tests/layering/planted).
set(bad "")
foreach(root IN LISTS ROOTS)
  file(GLOB_RECURSE sources ${root}/*.c ${root}/*.h ${root}/*.cu ${root}/*.def)
  foreach(src IN LISTS sources)
    file(STRINGS ${src} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      if(line MATCHES "#[ \t]*include[ \t]*\"[^\"]*/[^\"]*\"")
        list(APPEND bad "${src}: ${line}")
      endif()
    endforeach()
  endforeach()
endforeach()
list(LENGTH bad n_bad)
if(EXPECT_FAIL)
  if(n_bad LESS 2)
    message(FATAL_ERROR "the scan missed planted includes (found ${n_bad} of 2): ${bad}")
  endif()
  message(STATUS "ok: the scan reports ${n_bad} planted includes")
elseif(n_bad GREATER 0)
  string(REPLACE ";" "\n  " listing "${bad}")
  message(FATAL_ERROR "includes that name a path (use the bare header name; the build "
                      "exports each layer's top folder):\n  ${listing}")
else()
  message(STATUS "ok: every include names a bare header")
endif()
