#!/bin/sh
# bench/labels.sh: agreement of the failure taxonomy with the intended labels
# of the label mutation suite (docs/mutants.md §6) on a real pool: each
# reference broken in nine ways (empty, prose, syntax error, sibling API,
# misspelt import, wrong keyword, wrong argument shape, constant return,
# exception after the call). Prints, per intended label, the share the
# runtime taxonomy and the protocol's procedure get right, the confusion
# table, the disagreements, and the references whose verdict differs with
# the spy off.
#
# Usage: bench/labels.sh [--first] [--groups G1,G2] [POOL [ENV]]
#   POOL codeupdatearena (default; ENV trixie-arena: every group, torch and
#        sympy included; trixie-sci: math, itertools, re, numpy),
#        monkeyeval or beatnumeval (ENV bookworm-sci: APICoder's renamed
#        pools with the spy from their keyword mapping).
#   --first: CodeUpdateArena's first example of each update only.
#   --groups: only these groups (CodeUpdateArena's packages), so a whole
#        pool can run a group at a time, each report complete on its own.
# Needs bwrap, the environment and ../shared/data.
set -eu
cd "$(dirname "$0")/.."
all="-label-suite-all -label-suite-n=0"
groups=""
while [ $# -gt 0 ]; do
	case "$1" in
	--first) all="-label-suite-all=false -label-suite-n=0"; shift ;;
	--groups) groups="$2"; shift 2 ;;
	*) break ;;
	esac
done
pool=${1:-codeupdatearena}
case "$pool" in
codeupdatearena) env=${2:-trixie-arena} ;;
*) env=${2:-bookworm-sci} ;;
esac
NOVELAPI_REQUIRE_SANDBOX=1 exec go test ./importers -run '^TestLabelMutationSuite_Arena$' -count=1 -timeout 6h -v \
	-args $all -label-suite-pool="$pool" -label-suite-env="$env" -label-suite-groups="$groups"
