# Packages for hosts that are often offline (DCU hosts run Ubuntu 22.04 or CentOS-style
# systems): `cpack` in the build tree makes a .deb, an .rpm and a .tar.gz, each holding the
# binary, the GPU backend libraries (lib/dcukit, found relative to the binary wherever it is
# installed) and the docs. scripts/package.sh builds them and checks an install.
#
# The GPU backends link their vendor runtime (cuBLASLt, libamdhip64), which a host has only
# when it has that GPU: those are not package dependencies. The .deb's dependencies are those
# of the binary alone (scripts/package.sh passes them from dpkg-shlibdeps); the .rpm keeps
# rpm's automatic requirements but filters out the vendor runtimes.
#
# Each file where its kind belongs: the units in lib/systemd/system (the .deb's and the .rpm's
# /usr/lib/systemd/system), the man page (gzipped, as Debian's policy asks), the completions,
# the licence; the Kubernetes manifests, Prometheus rules and guard's options file are
# examples to adapt (share/doc/dcukit/examples), not installed configuration.
# The binaries are stripped and their debug information goes apart, by build id under
# /usr/lib/debug: the dcukit-dbgsym .ddeb, and dcukit-VERSION-Linux-ARCH-debug.tar.gz (the same
# files) for the .rpm and the .tar.gz (CPackOptions.cmake, scripts/package.sh).
install(FILES README.md LICENSE DESTINATION share/doc/dcukit)
install(FILES LICENSE DESTINATION share/doc/dcukit RENAME copyright)  # Debian's place for it
install(DIRECTORY docs/ DESTINATION share/doc/dcukit/docs)
install(FILES contrib/systemd/dcukit-guard.service contrib/systemd/dcukit-exporter.service
        DESTINATION lib/systemd/system)
install(FILES contrib/systemd/guard.conf DESTINATION share/doc/dcukit/examples/systemd)
install(DIRECTORY contrib/kubernetes contrib/prometheus contrib/grafana DESTINATION share/doc/dcukit/examples)
# Slurm's HealthCheckProgram and the job-mapping Prolog/Epilog: programs slurm.conf names by path.
install(PROGRAMS contrib/slurm/dcukit-healthcheck contrib/slurm/dcukit-job-mapping DESTINATION share/dcukit/slurm)
install(FILES contrib/completion/dcukit.bash DESTINATION share/bash-completion/completions RENAME dcukit)
install(FILES contrib/completion/_dcukit DESTINATION share/zsh/vendor-completions)
set(_man ${CMAKE_BINARY_DIR}/man/dcukit.1.gz)
add_custom_command(OUTPUT ${_man}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
  COMMAND gzip -9nc ${PROJECT_SOURCE_DIR}/contrib/man/dcukit.1 > ${_man}
  DEPENDS ${PROJECT_SOURCE_DIR}/contrib/man/dcukit.1 VERBATIM)
add_custom_target(dcukit_man ALL DEPENDS ${_man})
install(FILES ${_man} DESTINATION share/man/man1)

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
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "hipcc, nvidia-cuda-toolkit")
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/contrib/debian/postinst
    ${PROJECT_SOURCE_DIR}/contrib/debian/postrm)

set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "Apache-2.0")
set(CPACK_RPM_PACKAGE_GROUP "Development/Tools")
set(CPACK_RPM_SPEC_MORE_DEFINE
    "%global __requires_exclude ^lib(cublasLt|cublas|cudart|amdhip64|rocblas|hipblaslt)\\\\.so.*$")
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION /usr/share/doc /usr/lib/dcukit /usr/lib/systemd
    /usr/lib/systemd/system /usr/share/bash-completion /usr/share/bash-completion/completions /usr/share/zsh
    /usr/share/zsh/vendor-completions /usr/share/man /usr/share/man/man1)

set(CPACK_SYSTEM_PROCESSOR ${CMAKE_SYSTEM_PROCESSOR})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/CPackOptions.cmake)
include(CPack)
