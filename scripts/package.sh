#!/usr/bin/env bash
# Builds the .deb, .rpm and .tar.gz from the build tree (cpack), then checks them the way an
# offline host would use them: the .deb and the .tar.gz unpacked into fresh prefixes, and
# `dcukit --version` and `dcukit bench --list-backends` run from there (the backends must be
# found relative to the binary). The .rpm's file list and requirements are checked with rpm. Packages land in ${DCUKIT_BUILD_DIR:-build}/packages/.
set -euo pipefail
cd "$(dirname "$0")/.."
build="$(realpath "${DCUKIT_BUILD_DIR:-build}")"
[ -x "$build/bin/dcukit" ] || { echo "package: build first (scripts/setup.sh)" >&2; exit 1; }

generators="TGZ"
deb_depends=""
if command -v dpkg-shlibdeps >/dev/null && command -v dpkg-deb >/dev/null; then
  generators="$generators;DEB"
  # The binary's own library dependencies; the GPU backends' vendor runtimes are not required.
  work=$(mktemp -d)
  mkdir -p "$work/debian"
  touch "$work/debian/control"
  deb_depends=$(cd "$work" && dpkg-shlibdeps -O "$build/bin/dcukit" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
  rm -rf "$work"
fi
command -v rpmbuild >/dev/null && generators="$generators;RPM"

out="$build/packages"
rm -rf "$out"
mkdir -p "$out"
(cd "$build" && cpack -G "$generators" -B "$out" -D CPACK_DEBIAN_PACKAGE_DEPENDS="$deb_depends" >/dev/null)
rm -rf "$out/_CPack_Packages"
ls -1 "$out"

check() {  # $1: the prefix holding bin/dcukit
  "$1/bin/dcukit" --version
  local list
  list=$("$1/bin/dcukit" bench --list-backends)
  echo "$list"
  grep -q '^cpu' <<<"$list" || { echo "package: the cpu backend is not listed" >&2; exit 1; }
  for lib in "$build"/lib/dcukit/libdcukit_*.so; do
    [ -e "$lib" ] || continue
    name=$(basename "$lib" .so); name=${name#libdcukit_}
    # Loaded, or missing for the vendor runtime's reason: never "not found" for the library itself.
    if grep -E "^$name +missing" <<<"$list" | grep -q "libdcukit_$name.so: cannot open"; then
      echo "package: libdcukit_$name.so was not found relative to the binary" >&2; exit 1
    fi
    grep -Eq "^$name " <<<"$list" || { echo "package: the $name backend is not listed" >&2; exit 1; }
  done
}

prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
for deb in "$out"/*.deb; do
  [ -e "$deb" ] || continue
  echo "package: checking $(basename "$deb") (Depends: $(dpkg-deb -f "$deb" Depends))"
  dpkg-deb -x "$deb" "$prefix/deb"
  check "$prefix/deb/usr"
done
for tgz in "$out"/*.tar.gz; do
  echo "package: checking $(basename "$tgz")"
  mkdir -p "$prefix/tgz"
  tar -xzf "$tgz" -C "$prefix/tgz" --strip-components=1
  check "$prefix/tgz"
done
for rpm in "$out"/*.rpm; do
  [ -e "$rpm" ] || continue
  echo "package: $(basename "$rpm") holds $(rpm -qpl "$rpm" 2>/dev/null | grep -c .) files; requires: $(rpm -qpR "$rpm" 2>/dev/null | grep -v '^rpmlib' | sed 's/(.*//' | sort -u | tr '\n' ' ')"
  rpm -qpl "$rpm" 2>/dev/null | grep -q '^/usr/bin/dcukit$' || { echo "package: the rpm lacks /usr/bin/dcukit" >&2; exit 1; }
done
