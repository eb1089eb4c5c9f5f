package debenv

import (
	"fmt"
	"slices"
)

// suites are the Debian suites environments can be built from
// (docs/environments.md §1). experimental is an overlay: a sid system that
// takes only the requested packages from experimental (and what they need
// from it), everything else from sid.
var suites = []string{"bookworm", "trixie", "sid", "experimental"}

// Suites returns the Debian suites Build accepts.
func Suites() []string { return slices.Clone(suites) }

// baseSuite is the suite debootstrap installs for suite: sid for
// experimental, which has no complete system of its own, else suite.
func baseSuite(suite string) string {
	if suite == "experimental" {
		return "sid"
	}
	return suite
}

// indexSuites are the suites whose Packages indexes name suite's packages,
// the overlay first.
func indexSuites(suite string) []string {
	if suite == "experimental" {
		return []string{"experimental", "sid"}
	}
	return []string{suite}
}

// aptOptions are the apt options the build runs apt with inside suite's
// root filesystem. sid's and experimental's Release files carry a
// Valid-Until date a week after they were written, which the archive
// renews; a build machine whose clock is past it (or a mirror that lags)
// would refuse them, so apt does not check it for those suites. The
// Release signature is still checked.
func aptOptions(suite string) []string {
	if suite == "sid" || suite == "experimental" {
		return []string{"Acquire::Check-Valid-Until=false"}
	}
	return nil
}

// sourceLines are the apt sources of suite's root filesystem.
func sourceLines(suite, mirror string) []string {
	lines := []string{fmt.Sprintf("deb %s %s main", mirror, baseSuite(suite))}
	if suite == "experimental" {
		lines = append(lines, fmt.Sprintf("deb %s experimental main", mirror))
	}
	return lines
}
