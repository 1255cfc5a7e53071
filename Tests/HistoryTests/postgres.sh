#!/usr/bin/env bash
# A private PostgreSQL server for the history tests: Debian's postgresql package, a cluster initialised in a
# directory of its own, listening only on a Unix socket in that directory (no TCP port, nothing on the network).
#
#   Tests/HistoryTests/postgres.sh start DIR   # installs postgresql if missing, starts; prints the URL
#   Tests/HistoryTests/postgres.sh stop DIR    # stops the server and removes DIR
#
# The tests read the URL from BLERIG_TEST_POSTGRES_URL (make test sets it). As root the cluster belongs to the
# `postgres` user the package creates, since PostgreSQL refuses to run as root.
set -euo pipefail

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

bindir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
  if [ -z "$(bindir)" ] || [ ! -x "$(bindir)/initdb" ]; then
    echo "postgres.sh: installing Debian's postgresql package" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql </dev/null >&2
  fi
  bin=$(bindir)
  [ -x "$bin/initdb" ] || { echo "postgres.sh: no initdb under /usr/lib/postgresql after installing" >&2; exit 1; }
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; chmod 0755 "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -c listen_addresses= -c max_connections=200 -c unix_socket_permissions=0777" start >&2 \
    || { cat "$dir/server.log" >&2; exit 1; }
  echo "postgres://postgres@/postgres?host=$dir"
  ;;
stop)
  bin=$(bindir)
  if [ -n "$bin" ] && [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2; exit 2
  ;;
esac
