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

echo "== settlement benchmark (a figure to read, not a pass/fail timing)"
cargo run --release --locked --quiet -p croupier -- bench settle --bets 1000000 --players 100 --seconds 2

echo "== tests"
cargo test --workspace --locked
