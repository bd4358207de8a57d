#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, from Debian's postgresql
# package (scripts/setup.sh installs it): `scripts/postgres.sh start` makes
# one in a new folder under /tmp, listening on a free port of 127.0.0.1
# only, and prints the folder and the cluster's URL; `scripts/postgres.sh
# stop FOLDER` stops it and removes the folder. Its one user, croupier, is
# trusted on loopback: a cluster for tests, never for a casino.
set -euo pipefail

bin=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "scripts/postgres.sh: no PostgreSQL server (Debian's postgresql package): run scripts/setup.sh first" >&2
  exit 1
fi
# PostgreSQL does not run as root: as root, the cluster is the postgres user's.
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  as_owner=(runuser -u postgres --)
fi

case "${1:-}" in
  start)
    dir=$(mktemp -d /tmp/croupier-pg-XXXXXX)
    chmod 755 "$dir"
    [ ${#as_owner[@]} -eq 0 ] || chown postgres:postgres "$dir"
    "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U croupier -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "$dir postgres://croupier@127.0.0.1:$port/postgres"
    ;;
  stop)
    dir=${2:?"scripts/postgres.sh stop FOLDER"}
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: scripts/postgres.sh start | stop FOLDER" >&2
    exit 2
    ;;
esac
