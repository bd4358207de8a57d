#!/usr/bin/env bash
# The fast check: formatting, clippy, and every unit, property and
# in-process test (the casino, the ledger, the core, the server's writers
# and its seeded simulation, its HTTP routes through axum). No server
# process, no browser.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null; then
  echo "scripts/check.sh: cargo is not installed; install Rust with rustup first" >&2
  exit 1
fi

echo "== formatting"
cargo fmt --all -- --check

echo "== clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== unit, property and in-process tests"
# No crate has doc tests; the command's own tests that start processes are end to end.
cargo test --workspace --locked --exclude croupier --lib --bins --tests
cargo test --locked -p croupier --bins
