#!/usr/bin/env bash
# Builds the .deb, .rpm and .tar.gz from the build tree (cpack), then checks them the way an
# offline host would use them: the .deb installed by dpkg into a fresh root and the .tar.gz
# unpacked into a fresh prefix, and `dcukit --version` and `dcukit bench --list-backends` run
# from there (the backends must be found relative to the binary). In the .deb's root each file
# must be where its kind belongs (binary stripped, units, man page, completions, licence,
# examples), and the debug symbols in the separate dbgsym package, under the binary's build id.
# The .rpm's file list, licence and requirements are checked with rpm. Packages land in
# ${DCUKIT_BUILD_DIR:-build}/packages/.
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
# The debug symbols for the .rpm and the .tar.gz: the dbgsym package's files (one build, the
# same build ids), unpacked into / on the host that needs them (gdb finds them by build id).
for ddeb in "$out"/*dbgsym*.ddeb; do
  [ -e "$ddeb" ] || continue
  work=$(mktemp -d)
  dpkg-deb -x "$ddeb" "$work"
  tar -czf "$out/dcukit-$(dpkg-deb -f "$ddeb" Version | sed 's/-.*//')-Linux-$(uname -m)-debug.tar.gz" -C "$work" usr
  rm -rf "$work"
done
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
    if grep -E "^$name +missing" <<<"$list" | grep "libdcukit_$name.so: cannot open" >/dev/null; then
      echo "package: libdcukit_$name.so was not found relative to the binary" >&2; exit 1
    fi
    grep -Eq "^$name " <<<"$list" || { echo "package: the $name backend is not listed" >&2; exit 1; }
  done
}

prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
need() {  # FILE WHAT: FILE exists, or the package check fails naming it
  [ -e "$1" ] || { echo "package: $2 is missing: ${1#"$prefix"/}" >&2; exit 1; }
}
for deb in "$out"/dcukit_*.deb; do
  [ -e "$deb" ] || continue
  echo "package: checking $(basename "$deb") ($(du -h "$deb" | cut -f1); Depends: $(dpkg-deb -f "$deb" Depends))"
  root="$prefix/deb"
  mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  touch "$root/var/lib/dpkg/status"
  # A real install into a fresh root (no dependencies there: --force-depends).
  # Its maintainer scripts run with this host's /bin/sh (the fresh root has none): DPKG_ROOT is set.
  dpkg --root="$root" --force-not-root --force-depends --force-script-chrootless --log=/dev/null -i "$deb" \
    >/dev/null 2>"$prefix/dpkg.err" || { cat "$prefix/dpkg.err" >&2; exit 1; }
  dpkg --root="$root" -s dcukit | grep '^Status: install ok installed' >/dev/null || { echo "package: dpkg did not install it" >&2; exit 1; }
  check "$root/usr"
  bin="$root/usr/bin/dcukit"
  file -b "$bin" | grep ', stripped' >/dev/null || { echo "package: /usr/bin/dcukit is not stripped: $(file -b "$bin")" >&2; exit 1; }
  for f in lib/systemd/system/dcukit-guard.service lib/systemd/system/dcukit-exporter.service \
           share/man/man1/dcukit.1.gz share/bash-completion/completions/dcukit share/zsh/vendor-completions/_dcukit \
           share/doc/dcukit/copyright share/doc/dcukit/LICENSE share/doc/dcukit/examples/kubernetes/dcukit-exporter.yaml \
           share/doc/dcukit/examples/prometheus/alerts.yml share/doc/dcukit/examples/systemd/guard.conf \
           share/doc/dcukit/examples/grafana/dcukit-fleet.json share/dcukit/slurm/dcukit-healthcheck; do
    need "$root/usr/$f" "$f"
  done
  grep -q 'Apache License' "$root/usr/share/doc/dcukit/copyright" || { echo "package: copyright holds no licence" >&2; exit 1; }
  # The units run the binary the package installs; the man page they name renders.
  for unit in "$root"/usr/lib/systemd/system/dcukit-*.service; do
    grep -q '^ExecStart=/usr/bin/dcukit ' "$unit" || { echo "package: $(basename "$unit") does not run /usr/bin/dcukit" >&2; exit 1; }
    grep -q '^Documentation=man:dcukit(1)$' "$unit" || { echo "package: $(basename "$unit") names another man page" >&2; exit 1; }
    if command -v systemd-analyze >/dev/null; then  # as installed: ExecStart is the root's binary
      sed "s|/usr/bin/dcukit|$root/usr/bin/dcukit|" "$unit" > "$prefix/$(basename "$unit")"
      systemd-analyze verify --man=no "$prefix/$(basename "$unit")" ||
        { echo "package: $(basename "$unit") fails systemd-analyze verify" >&2; exit 1; }
    fi
  done
  if command -v man >/dev/null; then
    warnings=$(MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/dcukit.1.gz" 2>&1 >/dev/null || true)
    [ -z "$warnings" ] || { echo "package: the man page has warnings: $warnings" >&2; exit 1; }
    MANWIDTH=80 man -l "$root/usr/share/man/man1/dcukit.1.gz" 2>/dev/null | grep 'EXIT STATUS' >/dev/null ||
      { echo "package: the man page does not render" >&2; exit 1; }
  fi
  # The debug symbols: a separate package, found by the binary's build id.
  id=$(readelf -n "$bin" | sed -n 's/.*Build ID: *//p')
  [ -n "$id" ] || { echo "package: the binary has no build id" >&2; exit 1; }
  dbg=$(ls "$out"/*dbgsym*.ddeb "$out"/*dbgsym*.deb 2>/dev/null | head -1 || true)
  [ -n "$dbg" ] || { echo "package: no dbgsym package next to $(basename "$deb")" >&2; exit 1; }
  dpkg-deb -x "$dbg" "$prefix/dbg"
  debug="$prefix/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
  need "$debug" "the debug symbols of /usr/bin/dcukit (build id $id)"
  readelf -S "$debug" 2>/dev/null | grep '\.debug_info' >/dev/null || { echo "package: $(basename "$dbg") holds no .debug_info" >&2; exit 1; }
  echo "package: $(basename "$deb") installs each file in its place; debug symbols in $(basename "$dbg")"
done
for tgz in "$out"/*.tar.gz; do
  case $tgz in *-debug.tar.gz) continue ;; esac
  echo "package: checking $(basename "$tgz")"
  mkdir -p "$prefix/tgz"
  tar -xzf "$tgz" -C "$prefix/tgz" --strip-components=1
  check "$prefix/tgz"
  file -b "$prefix/tgz/bin/dcukit" | grep ', stripped' >/dev/null || { echo "package: the .tar.gz's dcukit is not stripped" >&2; exit 1; }
  id=$(readelf -n "$prefix/tgz/bin/dcukit" | sed -n 's/.*Build ID: *//p')
  debug_tgz=${tgz%.tar.gz}-debug.tar.gz
  # grep without -q reads to the end: tar is never cut off by a closed pipe (pipefail).
  tar -tzf "$debug_tgz" | grep -x "usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" >/dev/null ||
    { echo "package: $(basename "$debug_tgz") lacks the symbols of build id $id" >&2; exit 1; }
  echo "package: $(basename "$tgz") is stripped; its symbols are in $(basename "$debug_tgz")"
done
for rpm in "$out"/*.rpm; do
  [ -e "$rpm" ] || continue
  echo "package: $(basename "$rpm") holds $(rpm -qpl "$rpm" 2>/dev/null | grep -c .) files; requires: $(rpm -qpR "$rpm" 2>/dev/null | grep -v '^rpmlib' | sed 's/(.*//' | sort -u | tr '\n' ' ')"
  case $rpm in *debuginfo*) continue ;; esac
  rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" 2>/dev/null | grep ' /usr/bin/dcukit$' >/dev/null ||
    { echo "package: the rpm lists no /usr/bin/dcukit" >&2; exit 1; }
  for f in /usr/bin/dcukit /usr/lib/systemd/system/dcukit-guard.service /usr/share/man/man1/dcukit.1.gz \
           /usr/share/bash-completion/completions/dcukit /usr/share/doc/dcukit/LICENSE; do
    rpm -qpl "$rpm" 2>/dev/null | grep -x "$f" >/dev/null || { echo "package: the rpm lacks $f" >&2; exit 1; }
  done
  license=$(rpm -qp --qf '%{LICENSE}' "$rpm" 2>/dev/null)
  [ "$license" = "Apache-2.0" ] || { echo "package: the rpm's licence is '$license'" >&2; exit 1; }
done
