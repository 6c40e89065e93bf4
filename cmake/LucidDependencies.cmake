# System libraries lucid links against, found through pkg-config as imported targets.
# lucidConfig.cmake includes this file too, so installed consumers resolve the same targets.
find_package(PkgConfig REQUIRED QUIET)
pkg_check_modules(LUCID_LUA REQUIRED IMPORTED_TARGET GLOBAL lua5.4)
pkg_check_modules(LUCID_LAPACKE REQUIRED IMPORTED_TARGET GLOBAL lapacke)
pkg_check_modules(LUCID_OPENBLAS REQUIRED IMPORTED_TARGET GLOBAL openblas)
pkg_check_modules(LUCID_QHULL REQUIRED IMPORTED_TARGET GLOBAL qhull_r)
# libxml2 reads MJCF and URDF model files; linked PRIVATE (no public header includes it), but a
# static lucid still needs it at link time, hence found here for installed consumers too.
pkg_check_modules(LUCID_LIBXML2 REQUIRED IMPORTED_TARGET GLOBAL libxml-2.0)
# libpng reads MJCF height fields from PNG files; private like libxml2.
pkg_check_modules(LUCID_LIBPNG REQUIRED IMPORTED_TARGET GLOBAL libpng)
# SuiteSparse's LDL, KLU and AMD (the sparse contact solvers): Debian ships no pkg-config file
# for them, so an imported target from the headers and libraries.
find_path(LUCID_SUITESPARSE_INCLUDE suitesparse/ldl.h REQUIRED)
find_library(LUCID_LDL_LIBRARY ldl REQUIRED)
find_library(LUCID_KLU_LIBRARY klu REQUIRED)
find_library(LUCID_BTF_LIBRARY btf REQUIRED)
find_library(LUCID_COLAMD_LIBRARY colamd REQUIRED)
find_library(LUCID_AMD_LIBRARY amd REQUIRED)
find_library(LUCID_SUITESPARSECONFIG_LIBRARY suitesparseconfig REQUIRED)
if(NOT TARGET lucid_suitesparse)
  add_library(lucid_suitesparse INTERFACE IMPORTED GLOBAL)
  target_include_directories(lucid_suitesparse INTERFACE ${LUCID_SUITESPARSE_INCLUDE})
  target_link_libraries(lucid_suitesparse INTERFACE ${LUCID_LDL_LIBRARY} ${LUCID_KLU_LIBRARY}
                                                    ${LUCID_BTF_LIBRARY} ${LUCID_COLAMD_LIBRARY}
                                                    ${LUCID_AMD_LIBRARY}
                                                    ${LUCID_SUITESPARSECONFIG_LIBRARY})
endif()
# assimp reads the mesh formats lucid does not read itself (COLLADA .dae of URDFs, PLY, glTF,
# ...: runtime/shapes/mesh_file.c); Debian libassimp-dev.
pkg_check_modules(LUCID_ASSIMP REQUIRED IMPORTED_TARGET GLOBAL assimp)
set(LUCID_DEPENDENCY_TARGETS PkgConfig::LUCID_LUA PkgConfig::LUCID_LAPACKE
                             PkgConfig::LUCID_OPENBLAS PkgConfig::LUCID_QHULL
                             PkgConfig::LUCID_ASSIMP)
# Batch rollouts run on pthreads (runtime/world/world_batch.c).
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
list(APPEND LUCID_DEPENDENCY_TARGETS Threads::Threads)
