#!/bin/sh
# Benchmarks of the retrieval index, in one run: build throughput,
# query p50/p99 at ~1k and ~10k bundles, RSS of a process holding the 10k
# index, each as wall time and CPU time with the load averages, then the
# ratios to the targets (p50 <= 5 ms, p99 <= 25 ms at 10k, build >= 500
# bundles/s on an unloaded 2-core machine).
# Usage: bench/index.sh [--bundles FILE[,FILE...]] [--sizes 1000,10000] [--queries 400]
# Without --bundles it replicates the real bundles under
# ${NOVELAPI_HOME:-~/.cache/novelapi}/bundles.jsonl (what `novelapi up`
# writes), else ${NOVELAPI_HOME}/bundles/*.jsonl, else the test
# bundles when there are none.
set -eu
cd "$(dirname "$0")/.."
go build -o "${TMPDIR:-/tmp}/novelapi-bench-index" ./bench/index
home="${NOVELAPI_HOME:-$HOME/.cache/novelapi}"
files=""
if [ -s "$home/bundles.jsonl" ]; then
	files="$home/bundles.jsonl"
else
	for f in "$home"/bundles/*.jsonl; do
		case "$f" in *.dropped.jsonl) continue ;; esac
		[ -s "$f" ] && files="${files:+$files,}$f"
	done
fi
echo "uptime: $(uptime)"
case " $* " in
*" --bundles"*) exec "${TMPDIR:-/tmp}/novelapi-bench-index" "$@" ;;
esac
exec "${TMPDIR:-/tmp}/novelapi-bench-index" --bundles "${files:-index/testdata/bundles.jsonl}" "$@"
