package debenv

import "context"

// ParseMissingDebs exports parseMissingDebs to the black-box tests.
var ParseMissingDebs = parseMissingDebs

// ProbeVersions runs the build's version probe in the root filesystem root.
func ProbeVersions(t interface{ Context() context.Context }, root string, libs []Library) (python string, versions map[string]string, err error) {
	r, err := probeEnvironment(t.Context(), root, libs, nil)
	if err != nil {
		return "", nil, err
	}
	versions = map[string]string{}
	for n, l := range r.Libraries {
		versions[n] = l.Version
	}
	return r.Python, versions, nil
}
