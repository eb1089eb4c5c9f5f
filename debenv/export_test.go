package debenv

import "context"

// ParseMissingDebs exports parseMissingDebs to the black-box tests.
var ParseMissingDebs = parseMissingDebs

// ParseAptMissing exports parseAptMissing to the black-box tests.
var ParseAptMissing = parseAptMissing

// AptTargets exports aptTargets to the black-box tests.
var AptTargets = aptTargets

// ProbedLibrary is what the build's probe reports for one library.
type ProbedLibrary = probedLibrary

// Probe runs the build's probe in the root filesystem root.
func Probe(t interface{ Context() context.Context }, root string, libs []Library) (python string, got map[string]ProbedLibrary, err error) {
	r, err := probeEnvironment(t.Context(), root, libs, nil)
	if err != nil {
		return "", nil, err
	}
	return r.Python, r.Libraries, nil
}
