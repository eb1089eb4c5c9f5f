#!/bin/sh
# bench/fidelity.sh: do novelapi's verdicts on the references of the real
# pools equal the pools' own? For every task of CodeUpdateArena (in
# trixie-arena) and of APICoder's PandasEval, MonkeyEval, NumpyEval and
# BeatNumEval (in the environment given, default bookworm-sci), the
# reference runs under the pool's own assembly as plain Python, through
# the harness with the spy on and with it off; prints the table per pool
# and every task whose verdicts differ (docs/importers.md, "Fidelity").
#
# Usage: bench/fidelity.sh [ENV [POOLS]]   e.g. bench/fidelity.sh trixie-sci monkeyeval,beatnumeval
# Needs bwrap, the environments and ../shared/data.
set -eu
cd "$(dirname "$0")/.."
env=${1:-bookworm-sci}
pools=${2:-codeupdatearena,pandaseval,monkeyeval,numpyeval,beatnumeval}
NOVELAPI_REQUIRE_SANDBOX=1 exec go test ./importers -run '^TestReferenceFidelity$' -count=1 -timeout 4h -v \
	-args -fidelity-n=0 -fidelity-env="$env" -fidelity-pools="$pools"
