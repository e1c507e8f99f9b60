# Packages for hosts that are often offline (DCU hosts run Ubuntu 22.04 or CentOS-style
# systems): `cpack` in the build tree makes a .deb, an .rpm and a .tar.gz, each holding the
# binary, the GPU backend libraries (lib/dcukit, found relative to the binary wherever it is
# installed) and the docs. scripts/package.sh builds them and checks an install.
#
# The GPU backends link their vendor runtime (cuBLASLt, libamdhip64), which a host has only
# when it has that GPU: those are not package dependencies. The .deb's dependencies are those
# of the binary alone (scripts/package.sh passes them from dpkg-shlibdeps); the .rpm keeps
# rpm's automatic requirements but filters out the vendor runtimes.
install(FILES README.md DESTINATION share/doc/dcukit)
install(DIRECTORY docs/ DESTINATION share/doc/dcukit/docs)

set(CPACK_PACKAGE_NAME dcukit)
set(CPACK_PACKAGE_VENDOR "dcukit")
set(CPACK_PACKAGE_CONTACT "dcukit maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Bring up, measure and run LLM inference on Hygon DCU, AMD ROCm and NVIDIA CUDA GPUs")
set(CPACK_PACKAGE_DESCRIPTION
    "dcukit checks the GPU stack (doctor), measures the hardware against its published peaks (bench), plans vLLM deployments (plan), benchmarks serving endpoints (load), supervises inference servers (guard) and audits CUDA code for HIP (port). GPU backends load their vendor runtime at run time.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR "DEB;RPM;TGZ")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES OFF)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "hipcc, nvidia-cuda-toolkit")

set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "see README")
set(CPACK_RPM_PACKAGE_GROUP "Development/Tools")
set(CPACK_RPM_SPEC_MORE_DEFINE
    "%global __requires_exclude ^lib(cublasLt|cublas|cudart|amdhip64|rocblas|hipblaslt)\\\\.so.*$")
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION /usr/share/doc /usr/lib/dcukit)

set(CPACK_SYSTEM_PROCESSOR ${CMAKE_SYSTEM_PROCESSOR})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/CPackOptions.cmake)
include(CPack)
