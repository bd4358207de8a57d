#!/usr/bin/env bash
# Benchmarks and the RNG battery on the production build: figures to read,
# not a gate. `croupier bench load` (the table server under load) is not
# run here: it takes the machine's cores for a minute; see the README.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== settlement"
cargo run --release --locked --quiet -p croupier -- bench settle --bets 1000000 --players 100 --seconds 2
echo "== simulation"
cargo run --release --locked --quiet -p croupier -- bench sim --spins 50000000
echo "== the RNG battery on the production generator, seeded from the operating system"
cargo run --release --locked --quiet -p croupier -- rng test --wheel double-zero --samples 2000000
