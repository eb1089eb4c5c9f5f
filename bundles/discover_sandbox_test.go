package bundles_test

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestDiff_NumpyArrayAPI diffs the real numpy 1.24 (bookworm-sci) and 2.2
// (trixie-sci) surfaces: numpy.linalg.vector_norm matches only
// numpy.array_api.linalg.vector_norm of 1.24, so the protocol drops it as
// moved-only; --keep-filtered lists it as moved from that path and
// NewIfMovedFrom=numpy.array_api makes it a new candidate. It skips without
// a sandbox or the environments, and fails then under
// NOVELAPI_REQUIRE_SANDBOX=1.
func TestDiff_NumpyArrayAPI(t *testing.T) {
	runner := sandboxtest.Runner(t)
	oldEnv, newEnv := sandboxtest.Env(t, "bookworm-sci"), sandboxtest.Env(t, "trixie-sci")
	old, err := bundles.Introspect(t.Context(), runner, oldEnv, "numpy", "numpy")
	if err != nil {
		t.Fatal(err)
	}
	new, err := bundles.Introspect(t.Context(), runner, newEnv, "numpy", "numpy")
	if err != nil {
		t.Fatal(err)
	}
	const api, oldAPI = "numpy.linalg.vector_norm", "numpy.array_api.linalg.vector_norm"
	find := func(cs []bundles.Candidate) *bundles.Candidate {
		for i := range cs {
			if cs[i].APIName == api {
				return &cs[i]
			}
		}
		return nil
	}

	protocol, psum := bundles.Diff(old, new, "numpy", "data_science", bundles.DiffOptions{})
	if c := find(protocol); c != nil {
		t.Errorf("protocol diff lists %s: %+v; want it dropped as moved-only", api, c)
	}

	kept, ksum := bundles.Diff(old, new, "numpy", "data_science", bundles.DiffOptions{KeepFiltered: true})
	c := find(kept)
	if c == nil {
		t.Fatalf("keep-filtered diff lacks %s", api)
	}
	if got := otherString(t, *c, "dropped_by"); got != bundles.FilterMoved || c.Extra.OldAPIName != oldAPI ||
		!c.Extra.Relocated || c.IsModified || c.OldVersion == nil || *c.OldVersion != old.Version {
		t.Errorf("%s: dropped_by %q, old_api_name %q, relocated %v, modified %v; want moved from %s",
			api, got, c.Extra.OldAPIName, c.Extra.Relocated, c.IsModified, oldAPI)
	}
	if ksum.Candidates != psum.Candidates || ksum.MovedOnly != psum.MovedOnly {
		t.Errorf("keep-filtered changed the counts: %d candidates, %d moved; protocol %d, %d",
			ksum.Candidates, ksum.MovedOnly, psum.Candidates, psum.MovedOnly)
	}

	flagged, fsum := bundles.Diff(old, new, "numpy", "data_science", bundles.DiffOptions{NewIfMovedFrom: []string{"numpy.array_api"}})
	c = find(flagged)
	if c == nil {
		t.Fatalf("NewIfMovedFrom=numpy.array_api diff lacks %s", api)
	}
	if c.IsModified || c.Extra.OldAPIName != "" || otherString(t, *c, "moved_from_experimental") != oldAPI ||
		otherString(t, *c, "dropped_by") != "" {
		t.Errorf("%s = %+v; want a new candidate recording %s", api, c, oldAPI)
	}
	if fsum.New <= psum.New || fsum.Candidates-psum.Candidates != fsum.New-psum.New {
		t.Errorf("NewIfMovedFrom: %d new of %d candidates; protocol %d of %d; want only new ones added",
			fsum.New, fsum.Candidates, psum.New, psum.Candidates)
	}
	t.Logf("numpy %s -> %s: %d candidates (%d new), with NewIfMovedFrom=numpy.array_api %d (%d new); %d moved-only listed by keep-filtered",
		old.Version, new.Version, psum.Candidates, psum.New, fsum.Candidates, fsum.New, psum.MovedOnly)
}
