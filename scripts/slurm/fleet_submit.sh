#!/usr/bin/env bash
# fleet_submit.sh - run one cubench selection on every node of a Slurm
# partition and judge the nodes against each other (docs/fleet.md).
#
# Submits an array job (fleet_task.sh: one task per node, whole nodes by
# default, every task writing OUT/<host>_<GPU UUID>/) and a job that depends
# on it with afterany (fleet_report.sh: `cubench fleet OUT` into
# OUT/fleet-report.md and .csv, also when tasks failed). Submitting again with
# the same --out fills the gaps: only the tasks without a complete run are
# submitted (on nodes other than those that have one, when the run names are
# per host), and a task whose directory holds a complete run exits at once.
# Nothing site-specific is built in: accounts, QOS, reservations and
# constraints go through --sbatch-arg.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)

usage() {
    cat <<'EOF'
usage: fleet_submit.sh --out DIR --nodes N [options] [-- CUBENCH_RUN_ARGS...]

  --out DIR          shared directory (visible from every node) for the runs,
                     the task records (DIR/_fleet/) and the report
  --nodes N          array tasks, one per node (needed the first time; later
                     submissions reuse DIR/_fleet/expected, or grow it)
  --partition P      sbatch --partition
  --gpus-per-node G  GPUs per task (sbatch --gpus-per-node; default 1). 0: CPU-only
                     nodes, the task runs the host baselines
  --device D         `cubench run --device D` (default 0; `all` passes through for
                     builds that run every GPU of a node in one run)
  --time T           time limit per task (sbatch --time, default 00:30:00)
  --report-time T    time limit of the report job (default 00:10:00)
  --cubench PATH     the cubench binary as every node sees it (default: build/cubench
                     of this checkout)
  --host-label TPL   the run name before _<device id>: %h host, %n Slurm node,
                     %a array task (default %h)
  --max-parallel K   at most K tasks at once (the array's %K)
  --shared           do not ask for whole nodes (default: --exclusive, so no other
                     job disturbs the measurements and no two tasks share a node)
  --sbatch-arg ARG   one more sbatch argument for both jobs, repeatable
                     (e.g. --sbatch-arg=--account=ops --sbatch-arg=--reservation=burnin)
  --report-arg ARG   one more `cubench fleet` argument, repeatable
                     (e.g. --report-arg=--tolerance --report-arg=0.1)
  --html PYTHON      the report job also renders DIR/_fleet-html/ with this Python
                     (python3 -m reports --fleet; needs reports/requirements.txt)
  --job-name NAME    (default cubench-fleet)
  --dry-run          print the sbatch commands, submit nothing
  -h, --help         this text

CUBENCH_RUN_ARGS: the selection and options of `cubench run` (default: the fleet
selection: vecadd/grid_stride_float4, pinned transfers/memcpy_async,
matmul/cublas_fp32, matmul/pipelined, matmul/warptiled, and the host baselines
vecadd/host and matmul/host_blocked).
Prints the two job ids; the report lands in DIR/fleet-report.md.
EOF
}
die() {
    echo "fleet_submit: $*" >&2
    exit 2
}

out="" nodes="" partition="" gpus=1 device=0 time_limit=00:30:00 report_time=00:10:00
cubench="$src/build/cubench" label="%h" max_parallel="" exclusive=1 html="" name=cubench-fleet
dry_run=0
sbatch_args=() report_args=() run_args=()
need() { [ $# -ge 2 ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
    opt=$1
    val=""
    case "$opt" in
    --*=*) val=${opt#*=}; opt=${opt%%=*}; set -- "$opt" "$val" "${@:2}" ;;
    esac
    case "$opt" in
    --out) need "$@"; out=$2; shift 2 ;;
    --nodes) need "$@"; nodes=$2; shift 2 ;;
    --partition) need "$@"; partition=$2; shift 2 ;;
    --gpus-per-node) need "$@"; gpus=$2; shift 2 ;;
    --device) need "$@"; device=$2; shift 2 ;;
    --time) need "$@"; time_limit=$2; shift 2 ;;
    --report-time) need "$@"; report_time=$2; shift 2 ;;
    --cubench) need "$@"; cubench=$2; shift 2 ;;
    --host-label) need "$@"; label=$2; shift 2 ;;
    --max-parallel) need "$@"; max_parallel=$2; shift 2 ;;
    --shared) exclusive=0; shift ;;
    --sbatch-arg) need "$@"; sbatch_args+=("$2"); shift 2 ;;
    --report-arg) need "$@"; report_args+=("$2"); shift 2 ;;
    --html) need "$@"; html=$2; shift 2 ;;
    --job-name) need "$@"; name=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; run_args=("$@"); break ;;
    *) die "unknown option '$opt' (see --help)" ;;
    esac
done

[ -n "$out" ] || die "--out DIR is required"
[[ -z "$nodes" || "$nodes" =~ ^[1-9][0-9]*$ ]] || die "--nodes '$nodes': expected a positive number"
[[ "$gpus" =~ ^[0-9]+$ ]] || die "--gpus-per-node '$gpus': expected a number"
[[ "$device" =~ ^([0-9]+|all)$ ]] || die "--device '$device': expected a device number or all"
[[ -z "$max_parallel" || "$max_parallel" =~ ^[1-9][0-9]*$ ]] ||
    die "--max-parallel '$max_parallel': expected a positive number"
[ -x "$cubench" ] || die "--cubench '$cubench' is not executable (build first: scripts/build.sh)"
cubench=$(realpath "$cubench")
[ -n "$html" ] && html=$(command -v "$html" || echo "$html")
if [ ${#run_args[@]} -eq 0 ]; then
    run_args=(vecadd/grid_stride_float4 transfers/memcpy_async matmul/cublas_fp32 matmul/pipelined
              matmul/warptiled vecadd/host matmul/host_blocked --axis memory=pinned)
fi
command -v sbatch >/dev/null || [ "$dry_run" = 1 ] || die "sbatch not found: is this a Slurm login node?"

out=$(realpath -m "$out")
records=$out/_fleet
[ "$dry_run" = 1 ] || mkdir -p "$records/logs" || die "cannot create $records/logs"

# How many tasks: the recorded count, grown by --nodes.
expected=0
[ -s "$records/expected" ] && expected=$(tr -dc 0-9 <"$records/expected")
expected=${expected:-0}
[ -n "$nodes" ] && [ "$nodes" -gt "$expected" ] && expected=$nodes
[ "$expected" -gt 0 ] || die "--nodes N is required for the first submission to $out"

# Which tasks still need a run: those without a record of a complete one.
todo=() done_nodes=()
for ((i = 0; i < expected; i++)); do
    rec=$records/task-$i.csv
    if [ -s "$rec" ]; then
        IFS=, read -r _ _ rec_node _ rec_dir rec_state _ < <(sed -n 2p "$rec")
        if [[ "$rec_state" =~ ^(done|reused)$ ]] && [ -n "$rec_dir" ] &&
            grep -qs '"complete": *true' "$out/$rec_dir/meta.json"; then
            done_nodes+=("$rec_node")
            continue
        fi
    fi
    todo+=("$i")
done
if [ ${#todo[@]} -eq 0 ]; then
    echo "fleet_submit: all $expected tasks have a complete run in $out; nothing to submit" >&2
    echo "fleet_submit: the report: $cubench fleet $out" >&2
    exit 0
fi
ids=$(IFS=,; echo "${todo[*]}")

array_args=(--parsable "--job-name=$name" "--array=$ids${max_parallel:+%$max_parallel}"
            --nodes=1 --ntasks=1 "--time=$time_limit" "--output=$records/logs/task-%A_%a.out")
[ "$exclusive" = 1 ] && array_args+=(--exclusive)
[ -n "$partition" ] && array_args+=("--partition=$partition")
[ "$gpus" -gt 0 ] && array_args+=("--gpus-per-node=$gpus")
# Gap tasks must not land on nodes that already have a run, when a node has
# one run (whole nodes) named by its host; with %a in the label a task's run
# is its own wherever it runs, and with --shared (one task per GPU) a node
# with a finished GPU may still hold the missing one.
if [ "$exclusive" = 1 ] && [[ "$label" != *%a* ]] && [ ${#done_nodes[@]} -gt 0 ]; then
    array_args+=("--exclude=$(IFS=,; echo "${done_nodes[*]}")")
fi
task_cmd=("$here/fleet_task.sh" "$out" "$cubench" "$device" "$label" "$([ "$gpus" -gt 0 ] && echo 1 || echo 0)"
          -- "${run_args[@]}")
report_cmd=("$here/fleet_report.sh" "$out" "$cubench" "$html" "${report_args[@]}")
report_sbatch=(--parsable "--job-name=$name-report" --nodes=1 --ntasks=1 "--time=$report_time"
               "--output=$records/logs/report-%j.out" "--export=ALL,CUBENCH_SOURCE_DIR=$src")
[ -n "$partition" ] && report_sbatch+=("--partition=$partition")

if [ "$dry_run" = 1 ]; then
    printf 'sbatch'; printf ' %q' "${array_args[@]}" "${sbatch_args[@]}" "${task_cmd[@]}"; echo
    printf 'sbatch --dependency=afterany:ARRAY_JOB'; printf ' %q' "${report_sbatch[@]}" \
        "${sbatch_args[@]}" "${report_cmd[@]}"; echo
    exit 0
fi

echo "$expected" >"$records/expected"
array_job=$(sbatch "${array_args[@]}" "${sbatch_args[@]}" "${task_cmd[@]}")
array_job=${array_job%%;*} # --parsable: "jobid[;cluster]"
report_job=$(sbatch "--dependency=afterany:$array_job" "${report_sbatch[@]}" "${sbatch_args[@]}" \
    "${report_cmd[@]}")
report_job=${report_job%%;*}
printf '%s array=%s tasks=%s report=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$array_job" "$ids" \
    "$report_job" >>"$records/submissions.log"
echo "fleet_submit: array job $array_job (tasks $ids of $expected), report job $report_job" >&2
echo "fleet_submit: the report will be $out/fleet-report.md" >&2
echo "$array_job $report_job"
