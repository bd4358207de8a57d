#!/usr/bin/env bash
# Runs every test croupier has. CI runs exactly this (.ci/run).
# Needs only the Rust toolchain (cargo, rustfmt, clippy); crates come from crates.io.
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
rm -f "$log"
echo "${passed} passed, ${failed} failed"
