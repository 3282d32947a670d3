#!/usr/bin/env bash
# pg_server.sh start DIR [WATCH_PID] | stop DIR - a throwaway PostgreSQL
# server for the history tests, from the distribution's packages
# (scripts/setup.sh installs postgresql): a cluster made by initdb in DIR
# (a new, empty directory the caller made under /tmp), listening on a Unix
# socket in DIR/sock only (no TCP port), trust authentication for the role
# `cubench`, fsync off (nothing here outlives the test).
#
# `start` prints the connection URI on stdout. With WATCH_PID it also leaves
# a watchdog that stops the server and removes DIR once that process is
# gone, so a test that crashes leaves no server behind; `stop` does both at
# once. Exit 77 (ctest's skip) when the server binaries are not installed.
# As root, the server runs as the `postgres` user the package created
# (PostgreSQL refuses to run as root).
set -euo pipefail

say() { echo "pg_server: $*" >&2; }
[ $# -ge 2 ] || { say "usage: pg_server.sh start DIR [WATCH_PID] | stop DIR"; exit 2; }
cmd=$1 dir=$2 watch=${3:-}

bindir=""
if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    bindir=$(dirname "$(command -v pg_ctl)")
else
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { bindir=$d; break; }
    done
fi
if [ -z "$bindir" ]; then
    say "skipped: the PostgreSQL server (initdb, pg_ctl) is not installed; scripts/setup.sh installs it"
    exit 77
fi

as_server() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

stop_server() {
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_server "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

case $cmd in
start)
    [ -d "$dir" ] || { say "$dir: no such directory"; exit 2; }
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || { say "no 'postgres' user to run the server as"; exit 2; }
        chown postgres "$dir"
    fi
    as_server mkdir -p "$dir/data" "$dir/sock"
    if ! as_server "$bindir/initdb" -D "$dir/data" -U cubench -A trust -E UTF8 --no-sync \
        >"$dir/initdb.log" 2>&1; then
        say "initdb failed:"; cat "$dir/initdb.log" >&2; exit 1
    fi
    if ! as_server "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-k $dir/sock -c listen_addresses= -c fsync=off -c full_page_writes=off" \
        start >/dev/null 2>&1; then
        say "the server did not start:"; cat "$dir/server.log" >&2 2>/dev/null || true
        stop_server; exit 1
    fi
    if [ -n "$watch" ]; then
        # the watchdog: detached, quiet, gone once it has cleaned up
        (
            trap '' HUP
            while kill -0 "$watch" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
            [ -d "$dir" ] && stop_server
        ) </dev/null >/dev/null 2>&1 &
    fi
    echo "postgresql://cubench@/postgres?host=$dir/sock"
    ;;
stop)
    stop_server
    ;;
*)
    say "unknown command '$cmd' (start or stop)"; exit 2
    ;;
esac
