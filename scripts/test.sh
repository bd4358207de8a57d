#!/usr/bin/env bash
# Runs every test croupier has. CI runs exactly this (.ci/run).
# Needs the Rust toolchain (cargo, rustfmt, clippy) and Node.js with npm; crates come from
# crates.io, Chromium from Debian's packages (installed here when missing), playwright-core from npm.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null; then
  echo "scripts/test.sh: cargo is not installed; install Rust with rustup first" >&2
  exit 1
fi

echo "== formatting"
cargo fmt --all -- --check

echo "== clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== benchmarks (figures to read, not pass/fail timings)"
cargo run --release --locked --quiet -p croupier -- bench settle --bets 1000000 --players 100 --seconds 2
cargo run --release --locked --quiet -p croupier -- bench sim --spins 50000000

echo "== the RNG battery on the production generator, seeded from the operating system"
cargo run --release --locked --quiet -p croupier -- rng test --wheel double-zero --samples 2000000

echo "== tests"
# No crate has doc tests; leaving them out keeps the last line a real result.
log=$(mktemp)
cargo test --workspace --locked --lib --bins --tests 2>&1 | tee "$log"
passed=$(grep -Eo '^test result: [a-z]+\. [0-9]+ passed' "$log" | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}')

echo "== browser tests: the web terminals in headless Chromium, driven by playwright-core"
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! command -v npm >/dev/null; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
cargo build --locked --quiet -p croupier --bin croupier
(cd web-tests && npm ci --no-audit --no-fund --loglevel=error)
(cd web-tests && node --test --test-concurrency=1 terminals.test.mjs) 2>&1 | tee "$log"
passed=$((passed + $(grep -Eo '^# pass [0-9]+' "$log" | grep -Eo '[0-9]+' || echo 0)))
failed=$((failed + $(grep -Eo '^# fail [0-9]+' "$log" | grep -Eo '[0-9]+' || echo 0)))
echo "screenshots: target/web-screenshots/"
rm -f "$log"
echo "${passed} passed, ${failed} failed"
