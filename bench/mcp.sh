#!/bin/sh
# MCP server benchmark: initialize + tools/list latency and
# search_apis round trip p50/p99 over stdio and streamable HTTP, next to the
# in-process index search time of the same run.
#
#   bench/mcp.sh [INDEX_DIR] [extra flags, e.g. -n 500 --json]
#
# INDEX_DIR defaults to $NOVELAPI_HOME/index (the real index built by
# `novelapi index build`).
set -eu
cd "$(dirname "$0")/.."
home=${NOVELAPI_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/novelapi}
dir=${1:-$home/index}
[ $# -gt 0 ] && shift
bin=$(mktemp -d)/novelapi
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/novelapi
go run ./bench/mcp --index "$dir" --bin "$bin" "$@"
