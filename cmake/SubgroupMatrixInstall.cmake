# Install rules and the CMake package: `cmake --install build --prefix P`
# writes the headers (with the .td files and what TableGen made of them),
# the libraries, the tools, the C API, the Python package and
# P/lib/cmake/SubgroupMatrix/SubgroupMatrixConfig.cmake, whose imported
# targets downstream projects link (test/Downstream is one). CPack makes a
# Debian package of the same install.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/SubgroupMatrix")
# Debian's python3 reads /usr/lib/python3/dist-packages, so the package of a
# /usr install (the .deb) imports without a path of its own.
set(SM_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
    "Where the Python package is installed, relative to the prefix")

# Each library under the name downstream projects link.
set(smLibraries
  MLIRSubgroupMatrixDialect Dialect
  MLIRSubgroupMatrixAnalysis Analysis
  MLIRSubgroupMatrixTransforms Transforms
  MLIRGPUToSubgroupMatrix GPUToSubgroupMatrix
  MLIRLinalgToSubgroupMatrix LinalgToSubgroupMatrix
  MLIRSubgroupMatrixToSPIRV SubgroupMatrixToSPIRV
  MLIRSubgroupMatrixToInvocations SubgroupMatrixToInvocations
  MLIRSubgroupMatrixToIntel SubgroupMatrixToIntel
  MLIRSubgroupMatrixToMetal SubgroupMatrixToMetal
  MLIRSubgroupMatrixPipelines Pipelines
  MLIRSubgroupMatrixRegistration Registration
  MLIRSubgroupMatrixTranslations Translations
  MLIRSubgroupMatrixRuntime Runtime
  SMVulkanRuntime VulkanRuntime
  SMRunnerSupport RunnerSupport
  SubgroupMatrixCAPI CAPI
)
set(smInstalledLibraries)
while(smLibraries)
  list(POP_FRONT smLibraries target exportName)
  if(NOT TARGET ${target})
    continue() # The runtime is not built without the Vulkan headers.
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${exportName})
  # MLIR's headers and LLVM's definitions, which the installed package
  # states where it is found (SubgroupMatrixConfig.cmake).
  target_link_libraries(${target} INTERFACE
    $<INSTALL_INTERFACE:SubgroupMatrix::Headers>)
  list(APPEND smInstalledLibraries ${target})
endwhile()

# Everything sm-opt and sm-run link, as one target.
add_library(SubgroupMatrix INTERFACE)
target_link_libraries(SubgroupMatrix INTERFACE
  MLIRSubgroupMatrixRegistration
  MLIRSubgroupMatrixTranslations
)
if(TARGET MLIRSubgroupMatrixRuntime)
  target_link_libraries(SubgroupMatrix INTERFACE MLIRSubgroupMatrixRuntime)
endif()
target_include_directories(SubgroupMatrix INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>)
target_link_libraries(SubgroupMatrix INTERFACE
  $<INSTALL_INTERFACE:SubgroupMatrix::Headers>)

set(smTools sm-opt sm-translate sm-run sm-plan-runner sm-vulkan-runner
  sm-msl-host-runner sm-intel-host-runner)
set(smInstalledTools)
foreach(tool IN LISTS smTools)
  if(TARGET ${tool})
    list(APPEND smInstalledTools ${tool})
  endif()
endforeach()

install(TARGETS SubgroupMatrix ${smInstalledLibraries} ${smInstalledTools}
  EXPORT SubgroupMatrixTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT SubgroupMatrixTargets
  NAMESPACE SubgroupMatrix::
  DESTINATION ${SM_INSTALL_CMAKEDIR})

# Headers, TableGen sources and what TableGen generated from them.
install(DIRECTORY include/SubgroupMatrix include/SubgroupMatrix-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/SubgroupMatrix
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# What the Metal host runner compiles kernels against; the runner looks for
# it at ../share/subgroup-matrix/msl-host from its own folder.
install(FILES tools/sm-msl-host-runner/include/metal_stdlib
  lib/Runtime/Runner/InvocationFibers.h
  DESTINATION ${CMAKE_INSTALL_DATADIR}/subgroup-matrix/msl-host)

# The Python package, and a wheel of it for `pip install` into other
# environments; the package finds libSubgroupMatrixCAPI.so of the prefix it
# was installed from.
install(DIRECTORY python/subgroup_matrix
  DESTINATION ${SM_INSTALL_PYTHONDIR}
  PATTERN "__pycache__" EXCLUDE)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
install(CODE "
  set(prefix \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  execute_process(
    COMMAND \"${Python3_EXECUTABLE}\" \"${PROJECT_SOURCE_DIR}/utils/make-wheel.py\"
      --package \"${PROJECT_SOURCE_DIR}/python/subgroup_matrix\"
      --version \"${PROJECT_VERSION}\"
      --prefix \"\${CMAKE_INSTALL_PREFIX}\"
      --staged-prefix \"\${prefix}\"
      --libdir \"${CMAKE_INSTALL_LIBDIR}\" --bindir \"${CMAKE_INSTALL_BINDIR}\"
      --installed-package \"\${prefix}/${SM_INSTALL_PYTHONDIR}/subgroup_matrix\"
      --output-dir \"\${prefix}/${CMAKE_INSTALL_DATADIR}/subgroup-matrix/python\"
    COMMAND_ERROR_IS_FATAL ANY)
")

configure_package_config_file(cmake/SubgroupMatrixConfig.cmake.in
  ${PROJECT_BINARY_DIR}/SubgroupMatrixConfig.cmake
  INSTALL_DESTINATION ${SM_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR SM_INSTALL_PYTHONDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/SubgroupMatrixConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/SubgroupMatrixConfig.cmake
  ${PROJECT_BINARY_DIR}/SubgroupMatrixConfigVersion.cmake
  DESTINATION ${SM_INSTALL_CMAKEDIR})

# `cpack -G DEB` in the build folder: a Debian package of this install into
# /usr, depending on the Debian packages of what it links and runs.
set(CPACK_PACKAGE_NAME subgroup-matrix)
set(CPACK_PACKAGE_VENDOR "subgroup_matrix")
set(CPACK_PACKAGE_CONTACT "subgroup_matrix maintainers <subgroup-matrix@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "MLIR dialect and compiler for subgroup matrices (tensor cores, XMX, simdgroup matrices)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# libMLIR.so.22 and libLLVM.so.22 (the libraries and tools link them), the
# MLIR headers and CMake package (what downstream builds need; MLIR's package
# names the tools of mlir-22-tools), llc (the
# Intel translation), a C++ compiler (the CPU host runners compile kernels),
# the Vulkan loader and Mesa's CPU device.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libmlir-22, libllvm22, libmlir-22-dev, mlir-22-tools, llvm-22, g++, libvulkan1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers, python3-numpy")
include(CPack)
