# Sourced by the GPU scripts: when bubblewrap is not installed, a Debian package
# carried in .deps/ (apt-get download bubblewrap) is unpacked under build/ and
# named in LAB_BWRAP, which the grader's sandbox uses (a lent GPU machine has no
# network to install it).
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! command -v bwrap >/dev/null && [ -z "${LAB_BWRAP:-}" ]; then
  for _deb in "$_root"/.deps/bubblewrap_*.deb; do
    [ -f "$_deb" ] || continue
    mkdir -p "$_root/build/bubblewrap" && dpkg -x "$_deb" "$_root/build/bubblewrap" &&
      export LAB_BWRAP=$_root/build/bubblewrap/usr/bin/bwrap
  done
fi
unset _root _deb
