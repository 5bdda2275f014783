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
# R4C_PG_CPUS=n (root only) gives the server n cores of its own, and the
# demo one: each runs in a cgroup of the cpu controller with a quota of
# that many cores and a weight far above the rest of the machine's. Use it
# on a machine shared with other work: there, without it, every backend
# gets a share of the CPU of its own (PostgreSQL puts each in a session of
# its own, and Linux shares the CPU between sessions first), so the more
# queries run at once, the more CPU the server takes from the rest, and
# the server has no capacity to measure. With it, the server is a
# dependency of n cores whatever else runs.
cpus=${R4C_PG_CPUS:-}
cgroup_v1() { [[ -w /sys/fs/cgroup/cpu/cgroup.procs ]]; }
# cgroup_make makes the cgroup at path with a quota of cores and a high
# weight. The quota is counted over periods of 10 ms (the default 100 ms
# would stall a query for up to 100 ms when its cgroup has used its share).
cgroup_make() {
	mkdir "$1"
	if cgroup_v1; then
		echo 102400 >"$1/cpu.shares"
		echo 10000 >"$1/cpu.cfs_period_us"
		awk -v c="$2" 'BEGIN { printf "%d\n", c * 10000 }' >"$1/cpu.cfs_quota_us"
	else
		echo 10000 >"$1/cpu.weight"
		awk -v c="$2" 'BEGIN { printf "%d 10000\n", c * 10000 }' >"$1/cpu.max"
	fi
}
# cgroup_enter moves this shell (and so what it starts next) into a cgroup.
cgroup_enter() { echo "$BASHPID" >"$1/cgroup.procs"; }
cgroup_remove() {
	[[ -n $1 && -d $1 ]] || return 0
	for _ in $(seq 50); do
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "run.sh: could not remove the cgroup $1 (something still runs in it)" >&2
}

# PostgreSQL refuses to run as root; R4C_PG_USER names another user.
#
# Nothing outside a temporary directory is touched: the cluster's files and
# its unix socket live there, the server listens on 127.0.0.1 only, on a
# port that was free, and the directory is removed at the end.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

# The flags' help needs no server.
for arg in "$@"; do
	case $arg in
	-h | -help | --help)
		cd "$here" && exec go run . -h
		;;
	esac
done

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
pmpid="" cg_server="" cg_client="" cg_home=""

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
	if [[ -n $cg_home ]]; then
		cgroup_enter "$cg_home" 2>/dev/null || true
		cgroup_remove "$cg_server"
		cgroup_remove "$cg_client"
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

if [[ -n $cpus ]]; then
	if [[ $(id -u) != 0 ]]; then
		echo "run.sh: R4C_PG_CPUS needs root (it makes cgroups)" >&2
		exit 1
	fi
	if ! awk -v c="$cpus" 'BEGIN { exit !(c + 0 >= 0.1 && c + 0 <= 1024) }'; then
		echo "run.sh: R4C_PG_CPUS=$cpus: must be a number of cores between 0.1 and 1024" >&2
		exit 1
	fi
	if cgroup_v1; then
		cg_home=/sys/fs/cgroup/cpu$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' /proc/self/cgroup)
		cg_base=/sys/fs/cgroup/cpu
	elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		cg_home=/sys/fs/cgroup$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
		cg_base=/sys/fs/cgroup
	else
		echo "run.sh: R4C_PG_CPUS needs a writable cgroup cpu controller (v1 at /sys/fs/cgroup/cpu, or v2 with cpu enabled at its root)" >&2
		exit 1
	fi
	cg_home=${cg_home%/}
	cg_server=$cg_base/r4c-postgres-server-$$
	cg_client=$cg_base/r4c-postgres-client-$$
	cgroup_make "$cg_server" "$cpus"
	cgroup_make "$cg_client" 1
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
if [[ -n $cpus ]]; then
	cgroup_enter "$cg_server" # the server starts from here, in its cgroup
	echo "cores of its own: $cpus for the server, 1 for the demo (cgroups $cg_server, $cg_client)"
fi
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

if [[ -n $cpus ]]; then
	cgroup_enter "$cg_client"
fi

# The demo runs in the background so that a signal to this script reaches
# it at once (the traps below pass it on), and it still prints what it has
# measured before the cluster goes.
"$tmp/pgdemo" -dsn "host=127.0.0.1 port=$port user=r4c dbname=postgres sslmode=disable" "$@" &
demopid=$!
wait "$demopid"
