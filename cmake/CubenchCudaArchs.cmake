# CubenchCudaArchs.cmake - which GPU architectures cubench carries code for.
#
# The default build has to run on every GPU a user may own, not only on the
# one it was written on: machine code (SASS) for every architecture the
# installed nvcc can build from Turing (sm_75) up, plus PTX of the newest one,
# which the driver compiles (JIT) for GPUs newer than the toolkit. Which list
# that is depends on the toolkit (CUDA 12.x still builds Volta sm_70, CUDA 13
# dropped it and added sm_103/sm_110/sm_121), so it is asked of nvcc at
# configure time (`nvcc --list-gpu-code` / `--list-gpu-arch`) rather than
# written down here.
#
# Two steps:
#   cb_cuda_default_architectures()  before project(): when the user named no
#       CMAKE_CUDA_ARCHITECTURES (preset, -D, environment), set it to the list
#       above; CB_CUDA_ARCH_DEFAULTED tells that it did.
#   cb_cuda_resolve_architectures()  after project(): what the build really
#       carries, for build_info.h (meta.json, `cubench env`, the arch test):
#       CB_CUDA_SASS_ARCHS / CB_CUDA_PTX_ARCHS ("75,80,..."), the toolkit's
#       own list CB_CUDA_TOOLKIT_SASS_ARCHS and version CB_CUDA_TOOLKIT_VERSION.

# Oldest architecture of the default build: Turing. Volta (70) is older than
# what CUDA 13 can build at all, and keeping it for 12.x would give two
# different promises for the same source.
set(CB_CUDA_OLDEST_ARCH 75)

# nvcc as CMake will pick it: -DCMAKE_CUDA_COMPILER, $CUDACXX, PATH, then the
# usual install prefix. Sets CB_NVCC (empty when there is none).
function(cb_find_nvcc)
  if(CMAKE_CUDA_COMPILER)
    set(nvcc "${CMAKE_CUDA_COMPILER}")
  elseif(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
    set(nvcc "$ENV{CUDACXX}")
  else()
    find_program(CB_NVCC_FOUND nvcc PATHS /usr/local/cuda/bin)
    set(nvcc "${CB_NVCC_FOUND}")
    if(NOT nvcc)
      set(nvcc "")
    endif()
  endif()
  set(CB_NVCC "${nvcc}" PARENT_SCOPE)
endfunction()

# The architectures `nvcc FLAG` lists, as sorted numbers (sm_90 -> 90; the
# arch-specific sm_90a / family sm_100f forms are not part of a portable
# build and are dropped).
function(cb_nvcc_list_archs nvcc flag prefix out)
  execute_process(COMMAND "${nvcc}" ${flag} OUTPUT_VARIABLE text ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cubench: `${nvcc} ${flag}` failed (${rc}): ${err}\n"
                        "name the architectures yourself: -DCMAKE_CUDA_ARCHITECTURES=...")
  endif()
  string(REGEX MATCHALL "${prefix}_[0-9]+[a-z]?" words "${text}")
  set(archs "")
  foreach(w IN LISTS words)
    if(w MATCHES "^${prefix}_([0-9]+)$")
      list(APPEND archs ${CMAKE_MATCH_1})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES archs)
  list(SORT archs COMPARE NATURAL)
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# From the toolkit's lists: every sm_XY >= CB_CUDA_OLDEST_ARCH as SASS, and
# the newest compute_XY as PTX. Sets CB_TOOLKIT_SASS, CB_TOOLKIT_PTX_NEWEST
# and CB_TOOLKIT_DEFAULT_ARCHS (the CMake spelling, "75-real;...;121-virtual").
function(cb_toolkit_architectures nvcc)
  cb_nvcc_list_archs("${nvcc}" --list-gpu-code sm sass)
  cb_nvcc_list_archs("${nvcc}" --list-gpu-arch compute ptx)
  set(keep "")
  foreach(a IN LISTS sass)
    if(a GREATER_EQUAL CB_CUDA_OLDEST_ARCH)
      list(APPEND keep ${a})
    endif()
  endforeach()
  if(NOT keep OR NOT ptx)
    message(FATAL_ERROR "cubench: ${nvcc} lists no architecture >= sm_${CB_CUDA_OLDEST_ARCH}; "
                        "name them yourself: -DCMAKE_CUDA_ARCHITECTURES=...")
  endif()
  list(GET ptx -1 newest)
  set(spec "")
  foreach(a IN LISTS keep)
    list(APPEND spec "${a}-real")
  endforeach()
  list(APPEND spec "${newest}-virtual")
  set(CB_TOOLKIT_SASS "${keep}" PARENT_SCOPE)
  set(CB_TOOLKIT_PTX_NEWEST "${newest}" PARENT_SCOPE)
  set(CB_TOOLKIT_DEFAULT_ARCHS "${spec}" PARENT_SCOPE)
endfunction()

macro(cb_cuda_default_architectures)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND "$ENV{CUDAARCHS}" STREQUAL "")
    cb_find_nvcc()
    if(CB_NVCC)
      cb_toolkit_architectures("${CB_NVCC}")
      set(CMAKE_CUDA_ARCHITECTURES "${CB_TOOLKIT_DEFAULT_ARCHS}" CACHE STRING
          "CUDA architectures (default: SASS for every sm_XY >= ${CB_CUDA_OLDEST_ARCH} this nvcc builds + PTX of the newest)")
      set(CB_CUDA_DEFAULT_ARCHS "${CB_TOOLKIT_DEFAULT_ARCHS}" CACHE INTERNAL "the list cubench chose")
      if(NOT CMAKE_CUDA_COMPILER)
        # The list was asked of this nvcc: build with the same one.
        set(CMAKE_CUDA_COMPILER "${CB_NVCC}" CACHE FILEPATH "CUDA compiler")
      endif()
    endif()
  endif()
  # Also true on a re-configure, until someone names another list.
  if(DEFINED CACHE{CB_CUDA_DEFAULT_ARCHS} AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${CB_CUDA_DEFAULT_ARCHS}")
    set(CB_CUDA_ARCH_DEFAULTED ON)
  else()
    set(CB_CUDA_ARCH_DEFAULTED OFF)
  endif()
endmacro()

# Split one CMake architecture list into SASS and PTX numbers. Entries:
# "90" (both), "90-real" (SASS), "90-virtual" (PTX), "90a-real", and the
# special words native / all / all-major, which CMake resolved already.
function(cb_split_architectures spec sass_out ptx_out)
  if(spec STREQUAL "native")
    set(spec "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  elseif(spec STREQUAL "all")
    set(spec "${CMAKE_CUDA_ARCHITECTURES_ALL}")
  elseif(spec STREQUAL "all-major")
    set(spec "${CMAKE_CUDA_ARCHITECTURES_ALL_MAJOR}")
  endif()
  set(sass "")
  set(ptx "")
  foreach(e IN LISTS spec)
    if(e MATCHES "^([0-9]+[a-z]?)-real$")
      list(APPEND sass ${CMAKE_MATCH_1})
    elseif(e MATCHES "^([0-9]+[a-z]?)-virtual$")
      list(APPEND ptx ${CMAKE_MATCH_1})
    elseif(e MATCHES "^([0-9]+[a-z]?)$")
      list(APPEND sass ${CMAKE_MATCH_1})
      list(APPEND ptx ${CMAKE_MATCH_1})
    elseif(e STREQUAL "OFF")
      # CMAKE_CUDA_ARCHITECTURES=OFF: nvcc's own default, not recorded here.
    else()
      message(FATAL_ERROR "cubench: cannot read CUDA architecture '${e}' of '${spec}'")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES sass)
  list(REMOVE_DUPLICATES ptx)
  list(SORT sass COMPARE NATURAL)
  list(SORT ptx COMPARE NATURAL)
  string(REPLACE ";" "," sass "${sass}")
  string(REPLACE ";" "," ptx "${ptx}")
  set(${sass_out} "${sass}" PARENT_SCOPE)
  set(${ptx_out} "${ptx}" PARENT_SCOPE)
endfunction()

macro(cb_cuda_resolve_architectures)
  cb_split_architectures("${CMAKE_CUDA_ARCHITECTURES}" CB_CUDA_SASS_ARCHS CB_CUDA_PTX_ARCHS)
  cb_toolkit_architectures("${CMAKE_CUDA_COMPILER}")
  string(REPLACE ";" "," CB_CUDA_TOOLKIT_SASS_ARCHS "${CB_TOOLKIT_SASS}")
  set(CB_CUDA_TOOLKIT_PTX_NEWEST "${CB_TOOLKIT_PTX_NEWEST}")
  set(CB_CUDA_TOOLKIT_VERSION "${CMAKE_CUDA_COMPILER_TOOLKIT_VERSION}")
  if(CB_CUDA_ARCH_DEFAULTED)
    set(CB_CUDA_ARCH_ORIGIN "default")
  else()
    set(CB_CUDA_ARCH_ORIGIN "user")
  endif()
  message(STATUS "cubench: CUDA ${CB_CUDA_TOOLKIT_VERSION}, SASS for sm {${CB_CUDA_SASS_ARCHS}}, "
                 "PTX for compute {${CB_CUDA_PTX_ARCHS}} (${CB_CUDA_ARCH_ORIGIN}: ${CMAKE_CUDA_ARCHITECTURES})")
endmacro()
