# `cmake --install <build> --prefix <dir>` lays out:
#   include/wgk/*.h                    the public headers (not introspect.h: in-tree tools only)
#   lib/libwgk_runtime.a               the library, with the packages of kernels/ compiled in
#   lib/libwebgpu_wrapper.so           Dawn (no SONAME: consumers link it by name, see wgkConfig.cmake.in)
#   lib/cmake/wgk/                     find_package(wgk CONFIG REQUIRED) -> wgk::runtime
#   lib/pkgconfig/wgk.pc               pkg-config --cflags --libs wgk
#   bin/wgk                            the CLI (when built), finding Dawn through RUNPATH $ORIGIN/../lib
#   share/doc/wgk/LICENSE.dawn         Dawn's license
# examples/consumer builds against this tree (ctest: consumer.installed, consumer.pkg_config).
include(CMakePackageConfigHelpers)
set(WGK_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/wgk)

install(TARGETS wgk_runtime EXPORT wgkTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/wgk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN introspect.h EXCLUDE)
install(FILES ${WGK_DAWN_DIR}/lib/libwebgpu_wrapper.so DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${WGK_DAWN_DIR}/lib/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME LICENSE.dawn)
install(EXPORT wgkTargets NAMESPACE wgk:: DESTINATION ${WGK_CMAKE_DIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/wgkConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/wgkConfig.cmake INSTALL_DESTINATION ${WGK_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/wgkConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/wgkConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/wgkConfigVersion.cmake
        DESTINATION ${WGK_CMAKE_DIR})

# wgk.pc finds the prefix from its own folder (relocatable), as wgkConfig.cmake does.
file(RELATIVE_PATH WGK_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
configure_file(${CMAKE_CURRENT_LIST_DIR}/wgk.pc.in ${CMAKE_CURRENT_BINARY_DIR}/wgk.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/wgk.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(TARGET wgk)
  set_target_properties(wgk PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  install(TARGETS wgk RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
