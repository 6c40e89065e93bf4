# `cmake --install`: library, executable, headers (include/lucid/...), a CMake package
# (find_package(lucid) -> lucid::lucid) and a pkg-config file (lucid.pc).
include(CMakePackageConfigHelpers)

install(TARGETS lucid_lib EXPORT lucidTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS lucid RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES runtime/lucid.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lucid)
foreach(dir runtime solvers autodiff)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lucid/${dir}
          FILES_MATCHING PATTERN "*.h")
endforeach()

set(LUCID_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/lucid)
install(EXPORT lucidTargets NAMESPACE lucid:: DESTINATION ${LUCID_CMAKE_DIR})
configure_package_config_file(cmake/lucidConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/lucidConfig.cmake
                              INSTALL_DESTINATION ${LUCID_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lucidConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lucidConfig.cmake
              ${PROJECT_BINARY_DIR}/lucidConfigVersion.cmake
              cmake/LucidDependencies.cmake
        DESTINATION ${LUCID_CMAKE_DIR})

# The .pc file locates its prefix relative to itself, so `cmake --install --prefix X` works.
file(RELATIVE_PATH LUCID_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(cmake/lucid.pc.in ${PROJECT_BINARY_DIR}/lucid.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/lucid.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
