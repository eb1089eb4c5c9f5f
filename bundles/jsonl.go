package bundles

import (
	"fmt"
	"slices"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// ReadBundles reads a bundles.jsonl file (ours or the published
// benchmark's), see [jsonl.Read].
func ReadBundles(path string, opts jsonl.ReadOptions) ([]Bundle, jsonl.ReadStats, error) {
	return jsonl.Read[Bundle](path, opts)
}

// WriteBundles writes bundles atomically to path as bundles.jsonl, in the
// given order, see [jsonl.Write].
func WriteBundles(path string, bs []Bundle) error {
	return jsonl.Write(path, bs)
}

// Find returns the bundle whose api_name is name or, failing that, the
// first one listing name among its aliases, then among its public
// instances (Provenance.Instances: "scipy.stats.triang" finds
// scipy.stats.distributions.triang_gen). A name written with an import
// alias ("np.unstack") is looked up as its library's, the aliases learned
// from the bundles' examples ([LearnAliases]).
// The error wraps [ErrUnknownAPI].
func Find(bs []Bundle, name string) (*Bundle, error) {
	full := LearnAliases(ExampleCode(bs)).Expand(name)
	for i := range bs {
		if bs[i].APIName == name || bs[i].APIName == full {
			return &bs[i], nil
		}
	}
	for i := range bs {
		if slices.Contains(bs[i].Names()[1:], full) {
			return &bs[i], nil
		}
	}
	for i := range bs {
		if slices.Contains(bs[i].PublicInstances(), full) {
			return &bs[i], nil
		}
	}
	return nil, fmt.Errorf("%w: %q (%d bundles)", ErrUnknownAPI, name, len(bs))
}
