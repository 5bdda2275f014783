#!/bin/sh
# Runs the peer benchmarks and renders docs/performance.md from them.
# Flags go to the report program: ./run.sh -h lists them; for example
#   ./run.sh -count 3 -benchtime 100ms     (quicker, noisier)
#   ./run.sh -in results/bench.txt         (render again without running)
set -eu
cd "$(dirname "$0")"
exec go run ./cmd/report "$@"
