#!/bin/sh
# Times sandboxed executions (bwrap, docker) against a bare `chroot ROOT
# python3` baseline in one run; see bench/sandbox/main.go. Needs root (chroot,
# cgroups). Usage: bench/sandbox.sh [-env NAME] [-n N] [-backends bwrap,docker]
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/sandbox "$@"
