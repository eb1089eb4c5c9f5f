package bundles_test

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

func TestBundle_ComputeHash(t *testing.T) {
	fx := loadFixture(t)
	base := *fx["numpy.unstack"]
	h := base.ComputeHash()
	if len(h) != 64 {
		t.Fatalf("hash %q is not 64 hex digits", h)
	}

	same := base
	same.Provenance = &bundles.Provenance{Library: "numpy", Version: "2.2.4", Hash: "x"}
	same.Mechanism.Generator = "docstring"
	same.Examples = append([]bundles.Example(nil), base.Examples...)
	same.Examples[0].Source = "docstring"
	if got := same.ComputeHash(); got != h {
		t.Errorf("novelapi extensions changed the hash")
	}
	if base.Examples[0].Source != "" {
		t.Errorf("ComputeHash modified the bundle's examples")
	}

	emptyLists := bundles.Bundle{APIName: "a.b"}
	nilVsEmpty := emptyLists
	nilVsEmpty.SParam, nilVsEmpty.Examples, nilVsEmpty.Mechanism.References = []bundles.Parameter{}, []bundles.Example{}, []string{}
	if emptyLists.ComputeHash() != nilVsEmpty.ComputeHash() {
		t.Errorf("nil and empty lists hash differently")
	}

	changes := map[string]func(b *bundles.Bundle){
		"ReturnTypeNullVsEmpty": func(b *bundles.Bundle) { b.ReturnType = bundles.StringPtr("") },
		"Implementation":        func(b *bundles.Bundle) { b.Implementation += " " },
		"ParamDefault": func(b *bundles.Bundle) {
			b.SParam = append([]bundles.Parameter(nil), b.SParam...)
			b.SParam[1].Default = bundles.StringPtr("1")
		},
		"IsModified": func(b *bundles.Bundle) { b.IsModified = true },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			b := base
			change(&b)
			if b.ComputeHash() == h {
				t.Errorf("hash unchanged")
			}
		})
	}

	b := base
	if got := b.SetHash(); got != h || b.Provenance == nil || b.Provenance.Hash != h {
		t.Errorf("SetHash = %q, provenance %+v", got, b.Provenance)
	}
}
