#!/bin/sh
# novelapi's hybrid retrieval against the method of docs-mcp-server
# (bench/docsmcp: SQLite FTS5, 'porter unicode61', bm25 10/1/5/1 over
# content/title/url/path, pages split at 500/1,500/5,000 characters, the
# query sent as "whole query" OR ("t1" OR ...)), in one run over the same
# index and query sets: hit@1 / hit@5 / MRR per set (docs/retrieval.md).
# Usage: bench/docsmcp.sh [--index DIR] [--tasks FILE] [--by-library] [--no-source] [SET.jsonl ...]
# Without --index it uses ${NOVELAPI_HOME:-~/.cache/novelapi}/index and
# that home's tasks/tasks.jsonl when present. The query sets ask about the
# bookworm -> trixie novelties: build that index with
#   novelapi up --old-suite bookworm --new-suite trixie --no-serve
# bench/docsmcp is a module of its own (its SQLite driver stays out of
# novelapi's go.mod; -mod=mod takes in the dependencies novelapi adds);
# its first build compiles the driver (1-2 minutes).
set -eu
cd "$(dirname "$0")/.."
bin="${TMPDIR:-/tmp}/novelapi-bench-docsmcp"
(cd bench/docsmcp && go build -mod=mod -o "$bin" .)
home="${NOVELAPI_HOME:-$HOME/.cache/novelapi}"
case " $* " in
*" --index"*) exec "$bin" "$@" ;;
esac
tasks=""
[ -s "$home/tasks/tasks.jsonl" ] && tasks="--tasks $home/tasks/tasks.jsonl"
# shellcheck disable=SC2086
exec "$bin" --index "$home/index" $tasks "$@"
