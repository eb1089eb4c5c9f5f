package bundles_test

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// numpyNoteCandidates are candidates of the bookworm -> trixie span
// (numpy 1.24.2 -> 2.2.4, old the old release's version): the real ones
// of testdata/fixture (numpy.trapezoid among them; their docstrings teach
// the alias np), and real APIs of numpy 2.2 that numpy 2.0.0's release
// notes name as replacements.
func numpyNoteCandidates(t *testing.T, old string) []bundles.Candidate {
	t.Helper()
	cs, _, err := bundles.ReadCandidates("testdata/fixture/candidates-numpy.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"numpy.isin", "numpy.round", "numpy.genfromtxt", "numpy.vstack"} {
		cs = append(cs, bundles.Candidate{APIName: n, Kind: bundles.KindFunction, Library: "numpy", NewVersion: "2.2.4"})
	}
	for i := range cs {
		cs[i].OldVersion = &old
	}
	return cs
}

func TestNoteLinks_Numpy(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	docs, err := bundles.ReadDocs("testdata/docs/python-numpy-doc", "/usr/share/doc", "python-numpy-doc", "1:2.2.4+ds-1")
	if err != nil {
		t.Fatal(err)
	}
	links, err := bundles.NoteLinks(t.Context(), runner, env, numpyNoteCandidates(t, "1.24.2"), docs)
	if err != nil {
		t.Fatal(err)
	}
	const file = "/usr/share/doc/python-numpy/html/release/2.0.0-notes.html"
	want := map[string][]bundles.NoteLink{
		// deprecated in 2.0 and still in 2.2
		"numpy.trapezoid": {{Path: "numpy.trapz", Version: "2.0.0", File: file}},
		"numpy.isin":      {{Path: "numpy.in1d", Version: "2.0.0", File: file}},
		"numpy.vstack":    {{Path: "numpy.row_stack", Version: "2.0.0", File: file}},
		// removed by 2.0, a release within 1.24.2 -> 2.2.4
		"numpy.round":      {{Path: "numpy.round_", Version: "2.0.0", File: file, Removed: true}},
		"numpy.genfromtxt": {{Path: "numpy.recfromcsv", Version: "2.0.0", File: file, Removed: true}, {Path: "numpy.recfromtxt", Version: "2.0.0", File: file, Removed: true}},
	}
	for api, w := range want {
		if got := links[api]; !slices.Equal(got, w) {
			t.Errorf("%s: links %+v; want %+v", api, got, w)
		}
	}
	if got := links["numpy.unstack"]; got != nil {
		t.Errorf("numpy.unstack: links %+v; want none (no note names it as a replacement)", got)
	}
	// Diffed from 2.0.2, numpy.round_ was gone before the old release:
	// nothing shows the old release had it. numpy.trapz, still there, is
	// linked whatever the span.
	links, err = bundles.NoteLinks(t.Context(), runner, env, numpyNoteCandidates(t, "2.0.2"), docs)
	if err != nil {
		t.Fatal(err)
	}
	if got := links["numpy.round"]; got != nil {
		t.Errorf("numpy.round from 2.0.2: links %+v; want none", got)
	}
	if got := links["numpy.trapezoid"]; len(got) != 1 || got[0].Path != "numpy.trapz" {
		t.Errorf("numpy.trapezoid from 2.0.2: links %+v; want numpy.trapz", got)
	}
}

// Extraction records the release notes' links in the bundle beside the
// docstring's: numpy.round replaces numpy.round_, which numpy 2.0 removed.
func TestExtract_NoteReplaces(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	docs, err := bundles.ReadDocs("testdata/docs/python-numpy-doc", "/usr/share/doc", "python-numpy-doc", "1:2.2.4+ds-1")
	if err != nil {
		t.Fatal(err)
	}
	// numpy.round first, and only it extracted (Limit); the others teach
	// the alias. Its docstring link is one discovery would not make, to
	// show that the notes' come after.
	cs := numpyNoteCandidates(t, "1.24.2")
	k := slices.IndexFunc(cs, func(c bundles.Candidate) bool { return c.APIName == "numpy.round" })
	cs[0], cs[k] = cs[k], cs[0]
	cs[0].Extra.Replaces = []string{"numpy.around"}
	bs, _, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: env, Candidates: cs, Limit: 1, Workers: 1, Docs: docs, SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 {
		t.Fatalf("got %d bundles; want numpy.round's", len(bs))
	}
	p := bs[0].Provenance
	want := bundles.NoteLink{Path: "numpy.round_", Version: "2.0.0", File: "/usr/share/doc/python-numpy/html/release/2.0.0-notes.html", Removed: true}
	if !slices.Equal(p.Replaces, []string{"numpy.around", "numpy.round_"}) || len(p.ReplacesNotes) != 1 || p.ReplacesNotes[0] != want {
		t.Errorf("replaces %v, from notes %+v; want the docstring's numpy.around, then %+v", p.Replaces, p.ReplacesNotes, want)
	}
	if p.Hash != bs[0].ComputeHash() {
		t.Errorf("hash %s; want %s", p.Hash, bs[0].ComputeHash())
	}
}
