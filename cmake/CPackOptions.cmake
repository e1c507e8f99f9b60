# Per-generator settings, read by cpack (CPACK_PROJECT_CONFIG_FILE) before each generator runs
# (and kept from one to the next, so each sets what it needs): the .tar.gz unpacks into one
# relocatable folder (dcukit-VERSION-Linux-ARCH/bin, lib/dcukit, share), where the .deb and the
# .rpm install under /usr. The .deb splits the debug symbols into its dbgsym package itself and
# strips the files as it does; the .tar.gz and the .rpm are stripped here, and
# scripts/package.sh puts the same symbols (one build, the same build ids) in a -debug.tar.gz.
# (The .rpm's own debuginfo needs the source folder's path longer than /usr/src/debug/...,
# which a checkout's rarely is.)
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
  set(CPACK_STRIP_FILES ON)
  set(CPACK_PACKAGE_FILE_NAME "${CPACK_PACKAGE_NAME}-${CPACK_PACKAGE_VERSION}-Linux-${CPACK_SYSTEM_PROCESSOR}")
elseif(CPACK_GENERATOR STREQUAL "RPM")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
  set(CPACK_STRIP_FILES ON)
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
  set(CPACK_STRIP_FILES OFF)
endif()
