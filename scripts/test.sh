#!/usr/bin/env bash
# Every test: the fast check, then end to end. CI runs exactly this, after
# scripts/setup.sh (.ci/run). Benchmarks are scripts/bench.sh: figures, not a gate.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/check.sh
./scripts/e2e.sh
echo "all tests passed"
