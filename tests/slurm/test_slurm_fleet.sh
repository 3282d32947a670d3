#!/usr/bin/env bash
# test_slurm_fleet.sh CUBENCH SOURCE_DIR - the fleet workflow against a real
# Slurm: a one-node cluster on localhost (scripts/slurm/local_cluster.sh, the
# packages from scripts/setup_slurm.sh when missing), five array tasks that
# pretend to be five nodes (the task id is in the run name), and the report.
#
#   task 2 is the slow node: pinned to one CPU that nine busy loops share
#          with it, so it gets a tenth of one core where the others have the
#          machine (the CPU figures use the large points, which span many
#          time slices: 5-15x slower)
#   task 4 fails (its cubench exits 2) until the test lets it run
# The busy loops are pinned to that one CPU at the default priority, so the
# other ctest jobs keep the other CPU and lose no more to this test than to
# any CPU test.
#
# Checks: the report flags exactly task 2's run and lists task 4 as failed
# (exit 1); a second submission runs only task 4 and leaves the other runs
# and records untouched; a third has nothing to submit. The tolerance is
# 0.25: a shared 2-core CI machine moves a node's host figures by tens of
# percent, the slow node is 5-15x slower, and the normal runs, whose
# yardstick holds the slow one, have intervals that span decades.
# When the source tree has a .venv with the reports' requirements, the report
# job also renders the HTML page (fleet_submit.sh --html), which is checked.
# Every daemon and job process is stopped on exit; exit 77 (skip) when not
# root. About 60 s; the waits are bounded. CUBENCH_SLURM_KEEP=DIR copies the
# fleet directory there before cleaning up (docs/fleet-example/ came so).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: test_slurm_fleet.sh CUBENCH SOURCE_DIR" >&2; exit 2; }
cubench=$(realpath "$1")
src=$(realpath "$2")
say() { echo "test_slurm_fleet: $*" >&2; }
failures=0
check() { # DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then
        say "ok: $what"
    else
        say "FAILED: $what"
        failures=$((failures + 1))
    fi
}

if [ "$(id -u)" -ne 0 ]; then
    say "skipped: needs root (the test cluster runs as SlurmUser=root)"
    exit 77
fi
"$src/scripts/setup_slurm.sh" || { say "FAILED: could not install Slurm (scripts/setup_slurm.sh)"; exit 1; }
export PATH=$PATH:/usr/sbin

tmp=$(mktemp -d /tmp/cubench-slurm-test.XXXXXX)
cluster=$tmp/cluster
fleet=$tmp/fleet
cleanup() {
    "$src/scripts/slurm/local_cluster.sh" stop "$cluster" || true
    if [ -n "${CUBENCH_SLURM_KEEP:-}" ] && [ -d "$fleet" ]; then
        mkdir -p "$CUBENCH_SLURM_KEEP" && cp -r "$fleet" "$CUBENCH_SLURM_KEEP/"
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
"$src/scripts/slurm/local_cluster.sh" start "$cluster"
export SLURM_CONF=$cluster/slurm.conf

# cubench as the tasks see it.
cat >"$tmp/cubench-test" <<EOF
#!/usr/bin/env bash
# The fleet test's cubench: task 2 slowed, task 4 failing until $tmp/let-task-4-run exists.
real=$cubench
task=\${SLURM_ARRAY_TASK_ID:-}
[ "\${1:-}" = run ] || exec "\$real" "\$@"
if [ "\$task" = 4 ] && [ ! -e $tmp/let-task-4-run ]; then
    echo "fleet test: task 4 fails on purpose" >&2
    exit 2
fi
[ "\$task" = 2 ] || exec "\$real" "\$@"
cpu=\$(taskset -pc \$\$ | sed 's/.*: //; s/[-,].*//')
burners=()
for _ in 1 2 3 4 5 6 7 8 9; do
    taskset -c "\$cpu" bash -c 'while :; do :; done' &
    burners+=(\$!)
done
taskset -c "\$cpu" "\$real" "\$@" --threads 1 &
pid=\$!
trap 'kill \$pid "\${burners[@]}" 2>/dev/null' TERM INT
wait \$pid
rc=\$?
kill "\${burners[@]}" 2>/dev/null
wait "\${burners[@]}" 2>/dev/null
exit \$rc
EOF
chmod +x "$tmp/cubench-test"

html=()
if "$src/.venv/bin/python" -c 'import matplotlib, numpy' 2>/dev/null; then
    html=(--html "$src/.venv/bin/python")
fi
submit() {
    "$src/scripts/slurm/fleet_submit.sh" --out "$fleet" --nodes 5 --partition cbtest "${html[@]}" \
        --gpus-per-node 0 --time 3 --report-time 2 --host-label '%h-t%a' \
        --cubench "$tmp/cubench-test" --report-arg=--tolerance --report-arg=0.25 \
        -- vecadd/host matmul/host_blocked --quick --min-samples 10 --max-time-per-point 0.3 \
        --axis m=256,512
}

# Wait until the queue is empty (the report job is last), at most $1 s.
wait_queue() {
    local deadline=$((SECONDS + $1))
    while [ -n "$(squeue -h -o %i)" ]; do
        if [ $SECONDS -ge $deadline ]; then
            say "FAILED: jobs still queued after $1 s:"
            squeue >&2
            tail -n 20 "$fleet"/_fleet/logs/* >&2 || true
            exit 1
        fi
        sleep 0.5
    done
}

# The report's CSV, one line per row: run task verdict (python3 for the
# quoting; the CSV columns are in docs/fleet.md).
report_rows() {
    python3 -c '
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(row["run"] or "-", row["task"] or "-", row["verdict"], row["figure"] or "-")
' "$fleet/fleet-report.csv"
}
flagged_tasks() { report_rows | awk '$3 == "slow" || $3 == "fast" || $3 == "missing" { print $2 }' | sort -u | tr '\n' ' '; }
problem_tasks() { report_rows | awk '$3 == "problem" { print $2 }' | sort -u | tr '\n' ' '; }
slow_tasks() { report_rows | awk '$3 == "slow" { print $2 }' | sort -u | tr '\n' ' '; }

say "phase 1: five tasks, task 2 slow, task 4 failing"
submit
wait_queue 150
cat "$fleet/fleet-report.md" >&2
check "the report job ran and wrote exit 1" [ "$(cat "$fleet/fleet-report.rc" 2>/dev/null)" = 1 ]
check "only task 2 is flagged (flagged: $(flagged_tasks))" [ "$(flagged_tasks)" = "2 " ]
check "task 2 is slow, not fast or missing" [ "$(slow_tasks)" = "2 " ]
check "task 4 is the one problem (problems: $(problem_tasks))" [ "$(problem_tasks)" = "4 " ]
check "task 4's record says failed" grep -q ',failed,2,' "$fleet/_fleet/task-4.csv"
if [ ${#html[@]} -gt 0 ]; then
    check "the report job rendered the HTML page" grep -q 'vm-t2\|-t2_' "$fleet/_fleet-html/index.html"
fi
"$cubench" fleet "$fleet" --tolerance 0.25 >/dev/null 2>&1 && rc=0 || rc=$?
check "cubench fleet exits 1 on the same directory" [ "$rc" = 1 ]

say "phase 2: resubmit; only task 4 may run"
cp "$fleet/_fleet/task-0.csv" "$tmp/task-0.before"
run0=$(ls -d "$fleet"/*-t0_*)
cp "$run0/meta.json" "$tmp/meta-0.before"
touch "$tmp/let-task-4-run"
submit 2>"$tmp/submit2.log"
cat "$tmp/submit2.log" >&2
check "the resubmission asks for task 4 alone" grep -q 'tasks 4 of 5' "$tmp/submit2.log"
wait_queue 90
cat "$fleet/fleet-report.md" >&2
check "task 4 has a complete run now" grep -q ',done,0,' "$fleet/_fleet/task-4.csv"
check "task 0's record is untouched" cmp -s "$tmp/task-0.before" "$fleet/_fleet/task-0.csv"
check "task 0's run is untouched" cmp -s "$tmp/meta-0.before" "$run0/meta.json"
check "no problem left (problems: $(problem_tasks))" [ -z "$(problem_tasks)" ]
check "still only task 2 flagged (flagged: $(flagged_tasks))" [ "$(flagged_tasks)" = "2 " ]

say "phase 3: nothing left to submit"
submit 2>"$tmp/submit3.log" && rc=0 || rc=$?
check "a third submission has nothing to do" grep -q 'nothing to submit' "$tmp/submit3.log"
check "... and exits 0" [ "$rc" = 0 ]

"$src/scripts/slurm/local_cluster.sh" stop "$cluster"
left=$(pgrep -a -f -- "$tmp" || true) # pgrep leaves itself out; zombies show no path
check "no process of the test cluster is left" [ -z "$left" ]
[ -z "$left" ] || say "left: $left"

if [ "$failures" -gt 0 ]; then
    say "$failures check(s) failed"
    exit 1
fi
say "all checks passed"
