# shellcheck shell=bash
# setup.sh — set-up shared by scripts/pciesim and scripts/test; sourced, never run.
#
# Contract:
# - setup_packages installs the Debian packages the build needs, and touches apt only when one is missing,
#   so the common case costs one dpkg-query per package and prints nothing.
# - setup_build DIR [MESON-OPTION...] configures DIR on first use and rebuilds it, printing the build log
#   only when the build fails. Every message goes to stderr: stdout belongs to the program being run.
# - Callers hold setup_lock around setup_build, because sweeps start many copies of scripts/pciesim at once
#   and concurrent meson/ninja runs in one build directory corrupt it. setup_packages runs before the lock
#   so that a user who cannot write the checkout still gets the message naming the missing packages.
#
# Test hooks (environment):
#   PCIESIM_PACKAGES        space-separated list replacing the package list, e.g. to add a name that is
#                           certainly missing and exercise the install path
#   PCIESIM_SETUP_DRY_RUN=1 print the apt-get commands instead of running them

# Exit status when packages are missing and cannot be installed (EX_UNAVAILABLE).
readonly SETUP_EX_UNAVAILABLE=69

setup_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
readonly setup_root

# man-db (which brings groff): the docs suite renders the generated pciesim(1) page with `man -l`. python3: meson runs
# on it anyway; scripts/calibrate and docs/validation.md's calibration tables (scripts/lib/readme-tables.py) use
# it directly.
# libnlopt-dev: pciesim fit's bounded derivative-free search (sim/fit.c).
# gtkwave: its vcd2fst and fst2vcd read back the VCD traces in the trace suite (tests/test-trace.c), so a trace is
# checked by the reader users open it with, not only by ours. valgrind: scripts/test's instruction-count guard
# (scripts/instr-guard) counts instructions per event with its cachegrind tool.
setup_default_packages=(meson ninja-build pkg-config gcc libglib2.0-dev libyaml-dev check
  libjson-glib-dev gnuplot-nox parallel man-db python3 gtkwave valgrind libnlopt-dev)

setup_say() {
  printf '%s: %s\n' "${0##*/}" "$*" >&2
}

# Hold an exclusive lock on DIR (created if needed) until the caller closes fd 9. Close it before exec:
# an inherited lock would serialise every simulation run, not just the set-up.
setup_lock() {
  if ! { mkdir -p "$1" && exec 9>"$1/.pciesim-setup.lock"; } 2>/dev/null; then
    setup_say "cannot write to $1: run from a checkout you own"
    exit 73 # EX_CANTCREAT
  fi
  flock 9
}

setup_unlock() {
  exec 9>&-
}

# Print the packages from "$@" that are not fully installed, one per line.
setup_missing_packages() {
  local pkg status
  for pkg in "$@"; do
    # "deinstall ok config-files" and half-installed states count as missing, so only an exact match passes.
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) || status=
    if [[ "$status" != "install ok installed" ]]; then
      printf '%s\n' "$pkg"
    fi
  done
}

setup_packages() {
  local -a wanted missing sudo=()
  if [[ -n "${PCIESIM_PACKAGES:-}" ]]; then
    read -r -a wanted <<<"$PCIESIM_PACKAGES"
  else
    wanted=("${setup_default_packages[@]}")
  fi

  if ! command -v dpkg-query >/dev/null; then
    # Not Debian: we cannot tell what is installed, so trust the toolchain if it is there and let meson
    # report anything else by name.
    if command -v meson >/dev/null && command -v ninja >/dev/null && command -v pkg-config >/dev/null; then
      return 0
    fi
    setup_say "no dpkg-query here; install the equivalents of: ${wanted[*]}"
    exit "$SETUP_EX_UNAVAILABLE"
  fi

  mapfile -t missing < <(setup_missing_packages "${wanted[@]}")
  if ((${#missing[@]} == 0)); then
    return 0
  fi

  if ((EUID != 0)); then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      setup_say "missing Debian packages: ${missing[*]}"
      setup_say "install them as root, then rerun:"
      setup_say "  sudo apt-get install --no-install-recommends ${missing[*]}"
      exit "$SETUP_EX_UNAVAILABLE"
    fi
  fi

  setup_say "installing missing Debian packages: ${missing[*]}"
  # sudo resets the environment, so DEBIAN_FRONTEND travels through env(1) instead of an export.
  local -a apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
  if [[ "${PCIESIM_SETUP_DRY_RUN:-}" == 1 ]]; then
    setup_say "dry run: ${apt[*]} update"
    setup_say "dry run: ${apt[*]} install -y --no-install-recommends ${missing[*]}"
    return 0
  fi
  # apt's progress goes to stderr with the other set-up messages; stdin is closed because CI has none and a
  # prompt must fail rather than hang.
  "${apt[@]}" update </dev/null >&2
  "${apt[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null >&2
}

# setup_build DIR [MESON-OPTION...]: options apply only when DIR is first configured, so a developer's own
# choices for an existing build directory survive.
setup_build() {
  local dir=$1 log
  shift
  if [[ ! -f "$dir/meson-private/coredata.dat" ]]; then
    setup_say "configuring ${dir#"$setup_root"/}/ (first use)"
    if ! log=$(meson setup "$dir" "$setup_root" "$@" 2>&1); then
      printf '%s\n' "$log" >&2
      setup_say "meson setup failed for $dir"
      return 1
    fi
  fi
  setup_ninja "$dir"
}

setup_ninja() {
  local log
  # SETUP_TARGETS narrows the build (scripts/pciesim needs only the program, not every test).
  # shellcheck disable=SC2086
  if ! log=$(ninja -C "$1" ${SETUP_TARGETS:-} 2>&1); then
    printf '%s\n' "$log" >&2
    setup_say "build failed in $1"
    return 1
  fi
}
