#!/usr/bin/env bash
# run.sh starts a private PostgreSQL cluster on the loopback interface, runs
# the demo against it, and stops and deletes the cluster when it ends,
# however it ends (the trap below).
#
#	examples/postgres/run.sh                  # the whole demo, a few minutes
#	examples/postgres/run.sh -duration 5s     # any flag goes to the Go program (-h lists them)
#
# It needs the PostgreSQL server binaries (Debian: apt-get install
# postgresql; they live in /usr/lib/postgresql/<version>/bin) and Go.
# PGBIN overrides where the binaries are looked for. Run as root, the
# cluster runs as the user postgres (or nobody if there is none), since
# PostgreSQL refuses to run as root; R4C_PG_USER names another user.
#
# Nothing outside a temporary directory is touched: the cluster's files and
# its unix socket live there, the server listens on 127.0.0.1 only, on a
# port that was free, and the directory is removed at the end.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

# The server binaries: PGBIN, else pg_config's, else the newest Debian one.
find_pgbin() {
	if [[ -n ${PGBIN:-} ]]; then
		echo "$PGBIN"
		return
	fi
	local dir
	for dir in "$(pg_config --bindir 2>/dev/null || true)" $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [[ -n $dir && -x $dir/initdb && -x $dir/pg_ctl ]]; then
			echo "$dir"
			return
		fi
	done
	echo "run.sh: no PostgreSQL server binaries (initdb, pg_ctl) found; install them (Debian: apt-get install postgresql) or set PGBIN" >&2
	exit 1
}
pgbin=$(find_pgbin)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/r4c-postgres.XXXXXX")
pmpid=""

# cleanup stops the server by its pid (a fast shutdown: running queries are
# cancelled), waits for it to exit (30 s at most, then SIGKILL), and removes
# the temporary directory. It runs on every exit.
cleanup() {
	local status=$?
	trap - EXIT INT TERM
	if [[ -z $pmpid && -f $tmp/data/postmaster.pid ]]; then
		pmpid=$(head -n 1 "$tmp/data/postmaster.pid" || true)
	fi
	if [[ -n $pmpid ]] && kill -0 "$pmpid" 2>/dev/null; then
		kill -INT "$pmpid" 2>/dev/null || true
		for _ in $(seq 300); do
			kill -0 "$pmpid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pmpid" 2>/dev/null; then
			echo "run.sh: the server (pid $pmpid) did not stop in 30 s: killing it" >&2
			kill -KILL "$pmpid" 2>/dev/null || true
		fi
	fi
	rm -rf "$tmp"
	exit "$status"
}
demopid=""
# stop passes a signal on to the demo, waits for it to print what it has,
# and exits with the signal's status (the EXIT trap then cleans up).
stop() {
	if [[ -n $demopid ]]; then
		kill -TERM "$demopid" 2>/dev/null || true
		wait "$demopid" 2>/dev/null || true
	fi
	exit "$1"
}
trap cleanup EXIT
trap 'stop 130' INT
trap 'stop 143' TERM

# PostgreSQL refuses to run as root: as root, run the server as an
# unprivileged user that owns the temporary directory.
as=()
if [[ $(id -u) == 0 ]]; then
	user=${R4C_PG_USER:-}
	if [[ -z $user ]]; then
		if id postgres >/dev/null 2>&1; then user=postgres; else user=nobody; fi
	fi
	chown "$user" "$tmp"
	as=(runuser -u "$user" --)
fi

# Build the program first, so that compiling does not compete with the
# server for the CPU during the measurement.
echo "building the demo..."
(cd "$here" && go build -o "$tmp/pgdemo" .)

echo "initialising a private cluster in $tmp/data ($pgbin)..."
"${as[@]}" "$pgbin/initdb" -D "$tmp/data" -U r4c -A trust -E UTF8 --locale=C --no-sync >"$tmp/initdb.log" 2>&1 ||
	{ cat "$tmp/initdb.log" >&2; exit 1; }

# The server: loopback only, its socket in the temporary directory, no
# durability (nothing here is worth keeping), no JIT and no parallel
# workers (so that one query is one process on one core, and its latency
# does not depend on a compiler), enough connections for the runs without a
# limit.
maxconn=${R4C_PG_MAX_CONNECTIONS:-500}
free_port() {
	local port
	for _ in $(seq 50); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	echo "run.sh: no free port found" >&2
	exit 1
}
started=""
for attempt in 1 2 3; do
	port=$(free_port)
	if "${as[@]}" "$pgbin/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 start -o "\
-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$tmp \
-c max_connections=$maxconn -c shared_buffers=128MB \
-c fsync=off -c synchronous_commit=off -c full_page_writes=off \
-c jit=off -c max_parallel_workers_per_gather=0 \
-c log_min_messages=warning -c log_connections=off" >/dev/null; then
		started=yes
		break
	fi
	echo "run.sh: the server did not start on port $port (attempt $attempt); see below" >&2
	tail -n 5 "$tmp/server.log" >&2 || true
done
[[ -n $started ]] || exit 1
pmpid=$(head -n 1 "$tmp/data/postmaster.pid")
echo "server pid $pmpid listening on 127.0.0.1:$port"

# The demo runs in the background so that a signal to this script reaches
# it at once (the traps below pass it on), and it still prints what it has
# measured before the cluster goes.
"$tmp/pgdemo" -dsn "host=127.0.0.1 port=$port user=r4c dbname=postgres sslmode=disable" "$@" &
demopid=$!
wait "$demopid"
