package generate_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/generate"
	"github.com/novelapi/novelapi/pool"
)

// Several bundles share an api_name in imported pools (CodeUpdateArena's
// updates of numpy.sum): the oracle renders the one of the task's
// bundle_version.
func TestOracle_BundleVersion(t *testing.T) {
	mk := func(version, text string) bundles.Bundle {
		return bundles.Bundle{
			APIName: "numpy.sum", Library: "codeupdatearena", SName: "numpy.sum",
			Mechanism:  bundles.Mechanism{Text: text, Grounding: bundles.GroundingDocstring},
			Provenance: &bundles.Provenance{Version: version},
		}
	}
	o := generate.NewOracle([]bundles.Bundle{mk("u0", "first update adds a keyword"), mk("u1", "second update changes the output")})
	for _, tt := range []struct{ version, want string }{{"u0", "first update"}, {"u1", "second update"}} {
		task := &pool.Task{TaskID: "t", APIName: "numpy.sum", BundleVersion: tt.version}
		k, err := o.Knowledge(t.Context(), task, bundles.CondM)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(k.Text, tt.want) {
			t.Errorf("version %s rendered %q; want %q", tt.version, k.Text, tt.want)
		}
	}
	if _, err := o.Knowledge(t.Context(), &pool.Task{TaskID: "t", APIName: "numpy.sum", BundleVersion: "u9"}, bundles.CondM); err == nil {
		t.Error("unknown bundle_version: want an error")
	}
}
