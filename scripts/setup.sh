#!/usr/bin/env bash
# The one setup step the tests need beyond the Rust toolchain: Debian's
# Chromium and Node.js with npm for the browser tests, Debian's PostgreSQL
# server (the tests start throwaway clusters of it), libfaketime (a server
# started a gaming day later), and the browser
# tests' own npm package (playwright-core, pinned in web-tests/package-lock.json).
# Installs only what is missing; as root, or through sudo. CI runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
command -v npm >/dev/null || missing+=(nodejs npm)
# The PostgreSQL server the tests start a throwaway cluster of (scripts/postgres.sh).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
# libfaketime: the tests that start a server a gaming day later (testkit's Server::start_later).
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || missing+=(faketime)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]} from Debian's packages"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
(cd web-tests && npm ci --no-audit --no-fund --loglevel=error)
echo "setup: done (Chromium at ${CHROMIUM:-/usr/bin/chromium}, npm $(npm --version), PostgreSQL $(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1))"
