# The installed package works: installs the built swinup (components runtime and development)
# into a fresh prefix, then builds consumer/ against it three ways and runs each program:
#   1. CMake, find_package(swinup): consumer_shared (swinup::swinup) and consumer_static
#      (swinup::swinup_static); with the Vulkan backend (-DVULKAN=ON) also consumer_vulkan_shared
#      and consumer_vulkan_static, of swinup_vulkan.h. Every installed header must be included by
#      a consumer built here, and the headers installed are swinup.h, and swinup_vulkan.h exactly
#      when the build has the Vulkan backend. Then a consumer of the shared library alone with
#      CUDAToolkit, TBB, Threads and Vulkan hidden from find_package (it must configure, build and
#      run), and find_package(swinup COMPONENTS static) with TBB hidden (it must fail naming TBB);
#   2. pkg-config --cflags --libs swinup (the shared library);
#   3. pkg-config --static --libs swinup, libswinup.a linked (Libs.private must be complete).
# Each program must link the library it asked for (checked in its dynamic section) and upscale
# two frames with finite output (consumer/consumer.c), the same bits in all four. Any failing
# step fails the test.
#   cmake -DBUILD_DIR=<swinup build> -DWORK_DIR=<scratch> -DSOURCE_DIR=<tests/package>
#         -DGENERATOR=<generator> -DC_COMPILER=<cc> -P run_package_test.cmake
foreach(var BUILD_DIR WORK_DIR SOURCE_DIR GENERATOR C_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_package_test.cmake needs -D${var}=...")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# A program must (or must not) load libswinup.so.
function(check_links program shared)
  run_checked("readelf ${program}" readelf -d ${program})
  string(FIND "${run_output}" "[libswinup.so" at)
  if(shared AND at EQUAL -1)
    message(FATAL_ERROR "${program} does not load libswinup.so:\n${run_output}")
  elseif(NOT shared AND NOT at EQUAL -1)
    message(FATAL_ERROR "${program} loads libswinup.so, but was to link libswinup.a:\n${run_output}")
  endif()
endfunction()

# Runs a consumer; all of them must compute the same output bits.
function(run_consumer program)
  run_checked("running ${program}" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/lib ${program})
  message(STATUS "${program}: ${run_output}")
  if(NOT run_output MATCHES "output hash ([0-9a-f]+)")
    message(FATAL_ERROR "${program} printed no output hash")
  endif()
  set(hash ${CMAKE_MATCH_1})
  get_property(first GLOBAL PROPERTY swinup_consumer_hash)
  if(NOT first)
    set_property(GLOBAL PROPERTY swinup_consumer_hash ${hash})
  elseif(NOT hash STREQUAL first)
    message(FATAL_ERROR "${program} computed other output bits (${hash}) than the first program (${first})")
  endif()
endfunction()

foreach(component runtime development)
  run_checked("cmake --install (${component})"
    ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component ${component})
endforeach()
file(GLOB_RECURSE installed RELATIVE ${prefix} ${prefix}/*)
list(SORT installed)
message(STATUS "installed: ${installed}")

# The public headers: swinup.h, and swinup_vulkan.h exactly when the library defines its functions.
file(GLOB headers RELATIVE ${prefix}/include/swinup ${prefix}/include/swinup/*)
list(SORT headers)
set(expected_headers swinup.h)
if(VULKAN)
  list(APPEND expected_headers swinup_vulkan.h)
endif()
if(NOT headers STREQUAL expected_headers)
  message(FATAL_ERROR "installed include/swinup/: ${headers}, expected ${expected_headers}")
endif()
# Each of them is compiled by a consumer program below.
file(GLOB consumer_sources ${SOURCE_DIR}/consumer/*.c)
set(consumer_text "")
foreach(source ${consumer_sources})
  file(READ ${source} text)
  string(APPEND consumer_text "${text}")
endforeach()
foreach(header ${headers})
  string(FIND "${consumer_text}" "#include <swinup/${header}>" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no program of ${SOURCE_DIR}/consumer includes the installed swinup/${header}")
  endif()
endforeach()

# The shared library's SONAME is libswinup.so.<SWINUP_VERSION_MAJOR of the installed header>, and
# it exports exactly the functions src/api/libswinup.map lists (without the swinup_vulkan_ ones
# when the build has no Vulkan backend: -DVULKAN=OFF).
file(STRINGS ${prefix}/include/swinup/swinup.h major_line REGEX "^#define SWINUP_VERSION_MAJOR [0-9]+$")
string(REGEX MATCH "[0-9]+$" major "${major_line}")
file(GLOB shared_library ${prefix}/lib/libswinup.so.*.*.*)
run_checked("readelf -d ${shared_library}" readelf -d ${shared_library})
if(NOT run_output MATCHES "Library soname: \\[libswinup\\.so\\.${major}\\]")
  message(FATAL_ERROR "${shared_library}: the SONAME is not libswinup.so.${major}:\n${run_output}")
endif()
run_checked("nm -D ${shared_library}" nm -D --defined-only ${shared_library})
string(REGEX MATCHALL " [TtWDBR] ([A-Za-z_][A-Za-z0-9_]*)" exported "${run_output}")
list(TRANSFORM exported REPLACE "^ [TtWDBR] " "")
list(SORT exported)
file(READ ${SOURCE_DIR}/../../src/api/libswinup.map map)
string(REGEX MATCHALL "swinup_[a-z_]+" listed "${map}")
list(REMOVE_DUPLICATES listed)
if(NOT VULKAN)  # a build without the Vulkan backend defines none of the Vulkan-facing functions
  list(FILTER listed EXCLUDE REGEX "^swinup_vulkan_")
endif()
list(SORT listed)
if(NOT exported STREQUAL listed)
  message(FATAL_ERROR "${shared_library} exports\n  ${exported}\nbut src/api/libswinup.map lists\n  ${listed}")
endif()

# 1. CMake. No package registry: only the prefix may provide swinup.
run_checked("configuring the consumer"
  ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/cmake -G ${GENERATOR}
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCONSUMER_VULKAN=${VULKAN})
run_checked("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/cmake)
check_links(${WORK_DIR}/cmake/consumer_shared TRUE)
check_links(${WORK_DIR}/cmake/consumer_static FALSE)
run_consumer(${WORK_DIR}/cmake/consumer_shared)
run_consumer(${WORK_DIR}/cmake/consumer_static)
if(VULKAN)
  foreach(form shared static)
    set(program ${WORK_DIR}/cmake/consumer_vulkan_${form})
    if(form STREQUAL "shared")
      check_links(${program} TRUE)
    else()
      check_links(${program} FALSE)
    endif()
    run_checked("running ${program}" ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/lib ${program})
    message(STATUS "${program}: ${run_output}")
  endforeach()
endif()

# 1b. The shared library needs no other package: a machine without the CUDA toolkit, oneTBB,
# Threads or the Vulkan SDK configures, builds and runs a consumer of swinup::swinup (here they are
# hidden from find_package). find_package(swinup) without components then defines only it.
set(hidden CUDAToolkit TBB Threads Vulkan)
set(hide_flags "")
foreach(package ${hidden})
  list(APPEND hide_flags -DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON)
endforeach()
run_checked("configuring a consumer of the shared library with ${hidden} hidden"
  ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/cmake_bare -G ${GENERATOR}
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF ${hide_flags})
if(NOT run_output MATCHES "swinup::swinup_static \\(libswinup\\.a\\) needs Threads, TBB")
  message(FATAL_ERROR "find_package(swinup) with ${hidden} hidden did not say which dependencies of "
                      "swinup::swinup_static it missed:\n${run_output}")
endif()
run_checked("building the consumer of the shared library" ${CMAKE_COMMAND} --build ${WORK_DIR}/cmake_bare)
if(EXISTS ${WORK_DIR}/cmake_bare/consumer_static)
  message(FATAL_ERROR "swinup::swinup_static was defined although its dependencies were hidden")
endif()
check_links(${WORK_DIR}/cmake_bare/consumer_shared TRUE)
run_consumer(${WORK_DIR}/cmake_bare/consumer_shared)

# 1c. Asking for the static library (COMPONENTS static) without its dependencies fails at
# find_package, naming the missing one.
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/consumer -B ${WORK_DIR}/cmake_no_tbb -G ${GENERATOR}
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCONSUMER_COMPONENTS=static -DCMAKE_DISABLE_FIND_PACKAGE_TBB=ON
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "swinup::swinup_static \\(libswinup\\.a\\) needs TBB")
  message(FATAL_ERROR "find_package(swinup COMPONENTS static) with TBB hidden: exit ${rc}, expected a "
                      "failure naming TBB:\n${out}\n${err}")
endif()

# 2 and 3. pkg-config.
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run_checked("pkg-config --cflags --libs" ${PKG_CONFIG} --cflags --libs swinup)
separate_arguments(flags UNIX_COMMAND "${run_output}")
run_checked("compiling with pkg-config"
  ${C_COMPILER} ${SOURCE_DIR}/consumer/consumer.c -o ${WORK_DIR}/pkgconfig_shared ${flags})
check_links(${WORK_DIR}/pkgconfig_shared TRUE)
run_consumer(${WORK_DIR}/pkgconfig_shared)

run_checked("pkg-config --static --cflags --libs" ${PKG_CONFIG} --static --cflags --libs swinup)
separate_arguments(flags UNIX_COMMAND "${run_output}")
# The linker prefers libswinup.so to libswinup.a; take the archive for -lswinup only.
list(TRANSFORM flags REPLACE "^-lswinup$" "-Wl,-Bstatic;-lswinup;-Wl,-Bdynamic")
run_checked("compiling with pkg-config --static"
  ${C_COMPILER} ${SOURCE_DIR}/consumer/consumer.c -o ${WORK_DIR}/pkgconfig_static ${flags})
check_links(${WORK_DIR}/pkgconfig_static FALSE)
run_consumer(${WORK_DIR}/pkgconfig_static)
