# `cmake --install`: the static and shared libraries, executable, headers (include/lucid/...),
# a CMake package (find_package(lucid) -> lucid::lucid static, lucid::shared shared),
# pkg-config files (lucid.pc: shared; lucid-static.pc: static) and the Lua module lucid.so,
# installed where lua5.4 looks for C modules (docs/ecosystem.md).
include(CMakePackageConfigHelpers)

install(TARGETS lucid_lib lucid_shared EXPORT lucidTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Debian's lua5.4 searches <prefix>/lib/lua/5.4 for /usr/local and
# /usr/lib/<multiarch>/lua/5.4 for /usr: both are ${CMAKE_INSTALL_LIBDIR}/lua/5.4.
set(LUCID_LUA_CMOD_DIR ${CMAKE_INSTALL_LIBDIR}/lua/5.4
    CACHE STRING "Where the Lua C module lucid.so is installed (relative to the prefix)")
install(TARGETS lucid_module LIBRARY DESTINATION ${LUCID_LUA_CMOD_DIR})
install(TARGETS lucid RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES runtime/lucid.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lucid)

# The public headers: every header under runtime/, solvers/ and autodiff/ except the private
# ones, *_internal.h and any header that includes one (transitively). Installed under
# include/lucid/ with their folders; tests/consumer compiles each one on its own.
function(lucid_private_header header out)
  set(${out} 0 PARENT_SCOPE)
  if(header MATCHES "_internal\\.h$")
    set(${out} 1 PARENT_SCOPE)
    return()
  endif()
  file(STRINGS ${PROJECT_SOURCE_DIR}/${header} includes REGEX "^#include \"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
    if(EXISTS ${PROJECT_SOURCE_DIR}/${inc} AND NOT inc STREQUAL header)
      lucid_private_header(${inc} private)
      if(private)
        set(${out} 1 PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
endfunction()

file(GLOB_RECURSE LUCID_HEADERS RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/runtime/*.h ${PROJECT_SOURCE_DIR}/solvers/*.h
     ${PROJECT_SOURCE_DIR}/autodiff/*.h)
set(LUCID_PUBLIC_HEADERS "")
foreach(header IN LISTS LUCID_HEADERS)
  lucid_private_header(${header} private)
  if(NOT private AND NOT header STREQUAL "runtime/lucid.h")
    list(APPEND LUCID_PUBLIC_HEADERS ${header})
    get_filename_component(dir ${header} DIRECTORY)
    install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/lucid/${dir})
  endif()
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
configure_file(cmake/lucid-static.pc.in ${PROJECT_BINARY_DIR}/lucid-static.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/lucid.pc ${PROJECT_BINARY_DIR}/lucid-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
