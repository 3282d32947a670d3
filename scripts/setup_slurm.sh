#!/usr/bin/env bash
# setup_slurm.sh - install a Slurm controller, node daemon, client commands and
# MUNGE from the distribution (Debian 12: Slurm 22.05, MUNGE 0.5.15), for the
# fleet test (tests/slurm) and for trying scripts/slurm/ on one machine.
#
# Only the packages: no daemon is started or enabled, no key or slurm.conf is
# written - the test generates its own in a temporary directory. While the
# packages install, a policy-rc.d that forbids service starts is put in place
# (when the machine has none), so the packages' own munge/slurmctld/slurmd
# services never run. Idempotent: prints "ready" and exits 0 when everything
# is there. Exit 1 when it cannot install (no apt-get, not root, no network).
set -euo pipefail

say() { printf 'setup_slurm: %s\n' "$*" >&2; }

# package -> a program it provides
declare -A provides=([munge]=munged [slurmctld]=slurmctld [slurmd]=slurmd [slurm-client]=sbatch)
missing=()
for pkg in munge slurmctld slurmd slurm-client; do
    command -v "${provides[$pkg]}" >/dev/null 2>&1 ||
        [ -x "/usr/sbin/${provides[$pkg]}" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
    say "ready"
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    say "apt-get not found; install ${missing[*]} (Slurm >= 22.05 and MUNGE) by hand"
    exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { say "not root and no sudo: cannot install ${missing[*]}"; exit 1; }
    sudo=(sudo)
fi

# Keep the packages' services from starting: 101 = "action forbidden by policy".
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 755 "$policy"
    made_policy=1
fi
# shellcheck disable=SC2317 # called by the trap
cleanup() {
    if [ "$made_policy" = 1 ]; then "${sudo[@]}" rm -f "$policy"; fi
}
trap cleanup EXIT

say "installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
for pkg in "${missing[@]}"; do
    command -v "${provides[$pkg]}" >/dev/null 2>&1 || [ -x "/usr/sbin/${provides[$pkg]}" ] ||
        { say "$pkg installed but ${provides[$pkg]} not found"; exit 1; }
done
say "ready"
exit 0
