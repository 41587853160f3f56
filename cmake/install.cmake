# `cmake --install <build> [--prefix P] [--component C]` installs, by component:
#   runtime      lib/libswinup.so.<version> (and its SONAME link), LICENSE and NOTICE
#   development  include/swinup/swinup.h (and swinup_vulkan.h in a build with the Vulkan backend),
#                lib/libswinup.a, the libswinup.so link,
#                lib/cmake/swinup/ (find_package(swinup): swinup::swinup shared, component
#                shared; swinup::swinup_static static, component static) and lib/pkgconfig/swinup.pc
#   cli          bin/swinup
# tests/package/ installs runtime and development into a temporary prefix and builds a program
# against them with CMake and with pkg-config.
include(CMakePackageConfigHelpers)
set(SWINUP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/swinup)

# One export set per library, so that swinupConfig.cmake loads the static one (and looks for its
# dependencies) only when it is wanted: the shared library needs no other package.
install(TARGETS swinup_shared EXPORT swinupSharedTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development)
install(TARGETS swinup EXPORT swinupStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
# swinup_vulkan.h declares the swinup_vulkan_* functions, which only a Vulkan build defines.
set(SWINUP_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/swinup/swinup.h)
if(SWINUP_VULKAN)
  list(APPEND SWINUP_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/include/swinup/swinup_vulkan.h)
endif()
install(FILES ${SWINUP_PUBLIC_HEADERS}
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/swinup COMPONENT development)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/NOTICE
  DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
install(TARGETS swinup_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)

foreach(export swinupSharedTargets swinupStaticTargets)
  install(EXPORT ${export} NAMESPACE swinup:: DESTINATION ${SWINUP_CMAKE_DIR} COMPONENT development)
endforeach()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/swinupConfig.cmake.in
  ${PROJECT_BINARY_DIR}/swinupConfig.cmake INSTALL_DESTINATION ${SWINUP_CMAKE_DIR})
# 0.x releases make no compatibility promise between minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/swinupConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/swinupConfig.cmake ${PROJECT_BINARY_DIR}/swinupConfigVersion.cmake
  DESTINATION ${SWINUP_CMAKE_DIR} COMPONENT development)

# pkg-config: the prefix is found from the .pc file's own place (${pcfiledir}), so the files stay
# right wherever --prefix puts them. Libs.private: what linking libswinup.a needs besides it.
file(RELATIVE_PATH SWINUP_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
set(SWINUP_PC_LIBS_PRIVATE "-ltbb -pthread -lstdc++ -lm")
if(SWINUP_CUDA)
  get_target_property(SWINUP_CUDART_STATIC CUDA::cudart_static IMPORTED_LOCATION)
  get_filename_component(SWINUP_CUDART_DIR "${SWINUP_CUDART_STATIC}" DIRECTORY)
  string(PREPEND SWINUP_PC_LIBS_PRIVATE "-L${SWINUP_CUDART_DIR} -lcudart_static -ldl -lrt ")
endif()
if(SWINUP_VULKAN)
  string(PREPEND SWINUP_PC_LIBS_PRIVATE "-lvulkan ")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/swinup.pc.in ${PROJECT_BINARY_DIR}/swinup.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/swinup.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)
