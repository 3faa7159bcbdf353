#!/usr/bin/env bash
# Provisioning of a self-hosted GPU grading runner, once, by an admin.
#
#   bash scripts/provision-runner.sh            report what the grading job needs and
#                                               what is missing (changes nothing; exit 1
#                                               when something is missing)
#   sudo bash scripts/provision-runner.sh --install
#                                               install the missing Debian packages, then
#                                               report again
#
# The grading workflows run the report only: a grading job installs nothing and needs
# no sudo, so the student code it compiles and runs never gets root. The CUDA Toolkit
# and the NVIDIA driver are not installed here (NVIDIA's installers; see README.md).
set -uo pipefail
root=$(cd "${BASH_SOURCE[0]%/*}/.." && pwd)  # no dirname: the report runs on a bare PATH

install=0
case "${1:-}" in
  "") ;;
  --install) install=1 ;;
  -h | --help) echo "usage: provision-runner.sh [--install] (--install: as root)"; exit 0 ;;
  *) echo "provision-runner: unknown option $1 (--install or nothing)" >&2; exit 2 ;;
esac

missing=()   # what is missing, one line each
packages=()  # the Debian packages that --install would add

have() { command -v "$1" >/dev/null 2>&1; }
ok() { printf 'ok       %s\n' "$1"; }
lack() { printf 'MISSING  %s\n' "$1"; missing+=("$1"); [ -z "${2:-}" ] || packages+=("$2"); }
note() { printf 'note     %s\n' "$1"; }

check_tools() {
  local nvcc=""
  if have nvcc; then nvcc=$(command -v nvcc)
  elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; fi
  if [ -n "$nvcc" ]; then ok "nvcc ($nvcc)"
  else lack "nvcc: install the CUDA Toolkit (12.x or 13.x)"; fi
  # The sanitizer stage of grading (cmake/LabSanitize.cmake looks for it there).
  local bin=${nvcc%/*}
  if [ -n "$nvcc" ] && { [ -x "$bin/compute-sanitizer" ] ||
                         [ -x "$bin/../compute-sanitizer/compute-sanitizer" ]; }; then
    ok "compute-sanitizer (the sanitizer stage)"
  else lack "compute-sanitizer: install the CUDA Toolkit's compute-sanitizer next to nvcc"; fi

  if have nvidia-smi; then ok "nvidia-smi (the NVIDIA driver)"
  else lack "nvidia-smi: install the NVIDIA driver"; fi

  local version=""
  if have cmake && [[ $(cmake --version 2>/dev/null) =~ version\ ([0-9]+)\.([0-9]+) ]]; then
    version="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
    if (( BASH_REMATCH[1] > 3 || (BASH_REMATCH[1] == 3 && BASH_REMATCH[2] >= 25) )); then
      ok "cmake $version"
    else lack "cmake 3.25 or newer (found $version)" cmake; fi
  else lack "cmake 3.25 or newer" cmake; fi

  if have ninja; then ok "ninja"; else lack "ninja" ninja-build; fi
  if [ -f /usr/include/gtest/gtest.h ]; then ok "GoogleTest headers"
  else lack "GoogleTest headers (/usr/include/gtest)" libgtest-dev; fi

  # The sandbox: bubblewrap (or a copy named by LAB_BWRAP), prlimit and setpriv.
  if [ -n "${LAB_BWRAP:-}" ] && [ -x "$LAB_BWRAP" ]; then ok "bwrap (LAB_BWRAP=$LAB_BWRAP)"
  elif have bwrap; then ok "bwrap"
  else lack "bwrap (bubblewrap, the sandbox)" bubblewrap; fi
  if have prlimit; then ok "prlimit"; else lack "prlimit (util-linux)" util-linux; fi
  if have setpriv; then ok "setpriv"; else lack "setpriv (util-linux)" util-linux; fi
}

check_python() {
  if ! have python3; then
    lack "python3 3.10 or newer" python3
    lack "python3 module numpy" python3-numpy
    return
  fi
  if python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then ok "python3 3.10+"
  else lack "python3 3.10 or newer" python3; fi
  if python3 -c "import numpy" 2>/dev/null; then ok "python3 module numpy"
  else lack "python3 module numpy" python3-numpy; fi
}

check_sandbox() {
  # The grader's own trial: a command in the sandbox it would use (unprivileged user
  # namespaces, or bwrap as root with setpriv).
  if ! have python3 || { ! have bwrap && [ ! -x "${LAB_BWRAP:-}" ]; }; then
    note "sandbox trial skipped: it needs python3 and bwrap"
    return
  fi
  local why
  why=$(cd "$root" && python3 -c 'from grader.core.sandbox import decide
d = decide("auto")
print(d.reason if d.sandbox is None else "")' 2>&1)
  why=${why##*$'\n'}  # the last line: the reason, or the error of a failed import
  if [ -z "$why" ]; then ok "sandbox starts (grade --sandbox require will grade)"
  else lack "sandbox: $why (user namespaces: grader/README.md, Threat model)"; fi
  local userns=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
  if [ -r "$userns" ] && [ "$(<"$userns")" = 1 ]; then
    note "$userns is 1: unprivileged user namespaces need an AppArmor profile for bwrap"
  fi
}

check_privileges() {
  # Root is allowed (the grader drops student code to uid 65534), passwordless sudo
  # for a non-root runner user is not needed by anything and hands root to any job.
  if [ "${EUID:-$(id -u)}" -ne 0 ] && have sudo && sudo -n true 2>/dev/null; then
    note "the runner user has passwordless sudo: nothing needs it; remove it"
  fi
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then ok "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
  else note "CUDA_VISIBLE_DEVICES unset: one GPU per runner is advised (CONTRIBUTING.md, The grading runners)"; fi
}

report() {
  missing=()
  packages=()
  check_tools
  check_python
  check_sandbox
  check_privileges
}

report
if [ "$install" = 1 ] && [ ${#packages[@]} -gt 0 ]; then
  if [ "${EUID:-$(id -u)}" -ne 0 ]; then
    echo "provision-runner: --install must run as root (sudo)" >&2
    exit 1
  fi
  # Word splitting on purpose: an entry may name two packages.
  # shellcheck disable=SC2068
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q ${packages[@]}
  echo "== after --install"
  report
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ ${#packages[@]} -gt 0 ]; then
    how="an admin runs: sudo bash scripts/provision-runner.sh --install"
  else
    how="install the above by hand (no Debian package provides it)"
  fi
  echo "provision-runner: ${#missing[@]} missing: $how" >&2
  exit 1
fi
echo "provision-runner: this runner can grade"
