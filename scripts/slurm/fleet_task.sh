#!/usr/bin/env bash
# fleet_task.sh - one array task of a fleet run: one `cubench run` on this node
# into OUT/<label>_<device id>, with a record of what happened in
# OUT/_fleet/task-<id>.csv. Submitted by fleet_submit.sh (docs/fleet.md):
#
#   sbatch ... fleet_task.sh OUT CUBENCH DEVICE LABEL REQUIRE_GPU -- RUN_ARGS...
#
#   OUT          the shared fleet directory
#   CUBENCH      the cubench binary (or a wrapper) as seen from this node
#   DEVICE       passed to `cubench run --device` on a GPU node (a number, or
#                `all`: every GPU of the node in one run, the directory then
#                <label>_all-gpus and each GPU a run of its own in the report)
#   LABEL        the run name before _<device id>: %h host name, %n Slurm node
#                name, %a array task id (e.g. %h, or %h-t%a for several tasks
#                on one machine)
#   REQUIRE_GPU  1: a node without a usable CUDA device is a failed task (the
#                fleet asked for GPUs); 0: run the CPU baselines there
#
# The device id is the GPU's UUID (from `cubench env`, so it is the device the
# job was given), or for a run without a GPU "cpu-" and the first 8 characters
# of /etc/machine-id. A directory that already holds a complete run
# (meta.json "complete": true) is kept and the task exits 0 without running:
# a resubmission only fills the gaps. An incomplete one is moved to
# OUT/_fleet/attempts/ first (cubench never writes into a used directory).
#
# Exit: cubench's exit code (0, or 1 when a point failed), 2 for bad
# arguments or a missing GPU, 143 when terminated (time limit, scancel).
set -uo pipefail

if [ $# -lt 5 ]; then
    echo "usage: fleet_task.sh OUT CUBENCH DEVICE LABEL REQUIRE_GPU -- RUN_ARGS..." >&2
    exit 2
fi
out=$1 cubench=$2 device=$3 label_tpl=$4 require_gpu=$5
shift 5
[ "${1:-}" = -- ] && shift

task=${SLURM_ARRAY_TASK_ID:-0}
job=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-nojob}}_$task
host=$(hostname -s)
node=${SLURMD_NODENAME:-$host}
records=$out/_fleet
mkdir -p "$records" || exit 2
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
run_dir=""

# The record: a header and one row, replaced atomically (write + rename), so
# the report never reads half a line. Fields hold no comma (names below are
# restricted to [A-Za-z0-9._-]).
record() { # STATE EXIT_CODE [REASON]
    local tmp=$records/.task-$task.csv.$$ finished="" reason
    [ "$1" = running ] || finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    reason=$(printf '%s' "${3:-}" | tr ',\n\r"' ';   ' | cut -c1-160)
    printf 'task,job,node,host,run_dir,state,exit_code,started,finished,reason\n%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' \
        "$task" "$job" "$node" "$host" "$(basename "${run_dir:-}")" "$1" "$2" "$started" \
        "$finished" "$reason" >"$tmp" && mv -f "$tmp" "$records/task-$task.csv"
}
fail() { # EXIT_CODE MESSAGE
    echo "fleet_task: task $task on $node: $2" >&2
    record failed "$1" "$2"
    exit "$1"
}

label=${label_tpl//%h/$host}
label=${label//%n/$node}
label=${label//%a/$task}
label=$(printf '%s' "$label" | tr -c 'A-Za-z0-9._-' '-')
case "$label" in [._]* | "") label=h$label ;; esac # '.' and '_' names are not runs

[ -x "$cubench" ] || fail 2 "cubench '$cubench' is not an executable file on this node"

# The device id, and what to tell cubench run: nothing on a CPU-only node
# (cubench refuses a --device ordinal where there is no GPU).
env_text=$("$cubench" env --no-cupti 2>&1)
env_rc=$?
run_device=()
cpu_id() {
    local machine
    machine=$(head -c 8 /etc/machine-id 2>/dev/null || true)
    [ -n "$machine" ] || machine=$(printf '%s' "$host" | cksum | cut -d' ' -f1)
    echo "cpu-$machine"
}
if [ "$env_rc" -eq 3 ] && [ "$require_gpu" != 1 ]; then
    dev_id=$(cpu_id)
elif [ "$env_rc" -ne 0 ]; then
    fail 2 "no usable CUDA device here (cubench env exit $env_rc): $(printf '%s' "$env_text" | grep -m1 -i 'device' || true)"
elif [ "$device" = all ]; then
    dev_id=all-gpus
    run_device=(--device all)
else
    uuid=$(printf '%s\n' "$env_text" | awk -v d="$device" '
        $1 == "device" && $2 == d ":" { found = 1; next }
        found && $1 == "uuid" { sub(/,$/, "", $2); print $2; exit }
        found && $1 == "device" { exit }')
    [ -n "$uuid" ] || fail 2 "no CUDA device $device here (cubench env lists: $(printf '%s' "$env_text" | grep -c '^device ') devices)"
    dev_id=$uuid
    run_device=(--device "$device")
fi
dev_id=$(printf '%s' "$dev_id" | tr -c 'A-Za-z0-9._-' '-')
run_dir=$out/${label}_$dev_id

if grep -qs '"complete": *true' "$run_dir/meta.json"; then
    echo "fleet_task: task $task: $run_dir already holds a complete run; not running again" >&2
    record reused 0
    exit 0
fi
if [ -e "$run_dir" ]; then
    if ! mkdir -p "$records/attempts" ||
        ! mv "$run_dir" "$records/attempts/$(basename "$run_dir").$(date -u +%Y%m%dT%H%M%SZ).$job"; then
        fail 2 "cannot move the incomplete $run_dir aside"
    fi
fi

record running ""
# cubench in the background so that a TERM (time limit, scancel) reaches
# this trap at once; Slurm signals cubench too, which ends its run cleanly.
pid=""
# shellcheck disable=SC2317 # called by the trap
on_term() {
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid"
    fail 143 "terminated (time limit or scancel) while running into $run_dir"
}
trap on_term TERM INT
echo "fleet_task: task $task on $node ($host): cubench run into $run_dir" >&2
"$cubench" run "${run_device[@]}" --out "$run_dir" --quiet "$@" &
pid=$!
wait "$pid"
rc=$?
pid=""
if grep -qs '"complete": *true' "$run_dir/meta.json"; then
    record "done" "$rc" # rc 1: the run finished with failed points (the report lists them)
    exit "$rc"
fi
fail "$rc" "cubench run exit $rc without a complete run in $run_dir"
