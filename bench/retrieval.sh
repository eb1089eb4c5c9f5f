#!/bin/sh
# Retrieval figures of docs/retrieval.md in one run (bench/retrieval): hybrid hit@1 /
# hit@5 / MRR, bm25 and vector hit@5, the paper baseline (Full) and the
# hybrid / paper ratio on every bench/queries/nl*.jsonl set and on the tasks
# pool, then the held-out sets pooled against the targets (hit@5 >= 0.90,
# >= 1.3x paper).
# Usage: bench/retrieval.sh [--index DIR] [SET.jsonl ...]
# Without --index it uses ${NOVELAPI_HOME:-~/.cache/novelapi}/index (what
# `novelapi up` builds) and that home's tasks/tasks.jsonl when present. The
# query sets ask about numpy, scipy and pandas APIs new between bookworm and
# trixie: build that index with
#   novelapi up --old-suite bookworm --new-suite trixie --no-serve
# (the default span, trixie -> sid, has other novel APIs).
set -eu
cd "$(dirname "$0")/.."
home="${NOVELAPI_HOME:-$HOME/.cache/novelapi}"
case " $* " in
*" --index"*) exec go run ./bench/retrieval "$@" ;;
esac
tasks=""
[ -s "$home/tasks/tasks.jsonl" ] && tasks="--tasks $home/tasks/tasks.jsonl"
# shellcheck disable=SC2086
exec go run ./bench/retrieval --index "$home/index" $tasks "$@"
