#!/bin/sh
# bench/labels.sh: agreement of the failure taxonomy with the intended labels
# of the label mutation suite (docs/mutants.md §6) on a real pool:
# CodeUpdateArena's examples that trixie-sci runs (math, itertools, re,
# numpy), each reference broken in nine ways (empty, prose, syntax error,
# sibling API, misspelt import, wrong keyword, wrong argument shape, constant
# return, exception after the call). Prints, per intended label, the share
# the runtime taxonomy and the protocol's procedure get right, the confusion
# table and the disagreements.
#
# Usage: bench/labels.sh [--first]   (--first: the first example of each
#   update only, as CI runs it; default: every example)
# Needs bwrap, the trixie-sci environment and ../shared/data/codeupdatearena.
set -eu
cd "$(dirname "$0")/.."
all="-label-suite-all -label-suite-n=0"
if [ "${1:-}" = "--first" ]; then
	all="-label-suite-all=false -label-suite-n=0"
fi
NOVELAPI_REQUIRE_SANDBOX=1 exec go test ./importers -run '^TestLabelMutationSuite_Arena$' -timeout 3h -v -args $all
