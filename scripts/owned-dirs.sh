# shellcheck shell=bash
# Sourced by the GPU scripts: `owned_dir DIR` empties DIR only when this kind of
# script made it (its marker file is there), else refuses; then makes it anew.
owned_dir_marker=.made-by-cuda-labs-script
owned_dir() {
  if [ -e "$1" ] && [ ! -e "$1/$owned_dir_marker" ]; then
    echo "$(basename "$0"): $1 exists and was not made by this script; move it away" >&2
    return 2
  fi
  rm -rf "$1" && mkdir -p "$1" && touch "$1/$owned_dir_marker"
}
