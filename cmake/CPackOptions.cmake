# Per-generator settings, read by cpack (CPACK_PROJECT_CONFIG_FILE): the .tar.gz unpacks into
# one relocatable folder (dcukit-VERSION-Linux-ARCH/bin, lib/dcukit, share), where the .deb and
# the .rpm install under /usr.
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
  set(CPACK_PACKAGE_FILE_NAME "${CPACK_PACKAGE_NAME}-${CPACK_PACKAGE_VERSION}-Linux-${CPACK_SYSTEM_PROCESSOR}")
endif()
