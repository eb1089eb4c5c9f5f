#!/bin/sh
# Benchmarks of the retrieval index (issue 4): build throughput, query
# p50/p99 at ~1k and ~10k bundles, RSS of a process holding the 10k index.
# Usage: bench/index.sh [--bundles FILE[,FILE...]] [--sizes 1000,10000] [--queries 400]
set -eu
cd "$(dirname "$0")/.."
go build -o "${TMPDIR:-/tmp}/novelapi-bench-index" ./bench/index
exec "${TMPDIR:-/tmp}/novelapi-bench-index" "$@"
