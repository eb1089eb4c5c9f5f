#!/bin/sh
# bench/eval.sh: throughput of `novelapi eval run` (tasks/s with the default
# workers = CPUs, one greedy sample per task) on a real pool in the real
# sandbox, next to the bare sandbox execution rate (each task's
# reference_solution run directly, same concurrency) measured in the same run.
# harness_overhead = bare rate / eval rate; the harness should add little
# beyond the Python work itself.
#
# Usage: bench/eval.sh [TASKS.jsonl]   (expected_calls.jsonl must sit beside it)
#   Without TASKS, a built-in pool of real numpy.unstack tasks is used.
#   NOVELAPI_BENCH_N=64 sets the pool size (default 32);
#   NOVELAPI_SANDBOX_BACKEND=bwrap|docker picks the backend (default auto).
# Needs bwrap (or Docker) and the trixie-sci environment; fails if missing.
set -eu
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
	NOVELAPI_BENCH_TASKS=$(realpath "$1")
	export NOVELAPI_BENCH_TASKS
fi
NOVELAPI_REQUIRE_SANDBOX=1 exec go test ./evalharness -run '^$' -bench '^BenchmarkEvalRun$' -benchtime 1x -v
