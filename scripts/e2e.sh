#!/usr/bin/env bash
# End to end: the real `croupier` binary over real sockets (the server, a
# kill -9 under load on SQLite and on PostgreSQL, two nodes' failover, the automated wheel, every role against every
# endpoint, the command's subcommands), many more seeds of the server's
# simulation, the journal's contract against a changed API, and the web
# pages in headless Chromium. Needs scripts/setup.sh to have run once.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ] || [ ! -d web-tests/node_modules/playwright-core ]; then
  echo "scripts/e2e.sh: the browser tests need Chromium and playwright-core: run scripts/setup.sh first" >&2
  exit 1
fi

echo "== the command and its server, end to end"
# The full-disk test mounts a small tmpfs: wherever one can be mounted it
# must run, not pass over.
probe=$(mktemp -d)
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs "$probe" 2>/dev/null; then
  umount "$probe"
  export CROUPIER_FULL_DISK_TEST=required
else
  echo "scripts/e2e.sh: no tmpfs can be mounted here (not root, or no privilege to mount), so the full-disk test (tests/disk.rs) passes over" >&2
fi
rmdir "$probe"
# A throwaway PostgreSQL cluster: the storage contract, the kill -9 test and
# the two-node failover test run against it too (tests/failover.rs).
pg=$(./scripts/postgres.sh start)
read -r pg_dir pg_url <<<"$pg"
trap './scripts/postgres.sh stop "$pg_dir"' EXIT
export CROUPIER_TEST_POSTGRES="$pg_url"
echo "PostgreSQL for the tests: $pg_url"
cargo test --locked -p croupier-ledger --test storage_contract
cargo test --locked -p croupier --tests

echo "== the server's simulation, many seeds"
SIMULATION_SEEDS="${SIMULATION_SEEDS:-200}" cargo test --locked -p croupier-server --test simulation

echo "== the journal's contract"
./scripts/journal-contract.sh

echo "== browser tests: the web pages in headless Chromium, driven by playwright-core"
cargo build --locked --quiet -p croupier --bin croupier
# Each file records the buttons it clicked in target/web-buttons; buttons.test.mjs,
# in a command of its own after them (node --test runs its files in name order,
# not as listed), fails for any button of any page that no file clicked.
rm -rf target/web-buttons
(cd web-tests && node --test --test-concurrency=1 terminals.test.mjs terminal.test.mjs shift.test.mjs money.test.mjs cage.test.mjs tournaments.test.mjs consoles.test.mjs restart.test.mjs integrity.test.mjs day-report.test.mjs floor.test.mjs slips.test.mjs drawer.test.mjs languages-catalogue.test.mjs languages.test.mjs back-office.test.mjs languages-staff.test.mjs \
  && node --test buttons.test.mjs)
echo "screenshots: target/web-screenshots/"
