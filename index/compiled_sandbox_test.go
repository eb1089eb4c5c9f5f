package index_test

import (
	"path/filepath"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestSearch_CompiledAPIs extracts numpy's ufuncs matvec, vecmat and
// bitwise_count and its C type dtypes.StringDType in trixie-sci (numpy
// 2.2, no Python source: served without C), and numpy.strings.slice in
// sid-onnx (numpy 2.4), indexes them with the test bundles, and asks for
// each by name and in plain words.
func TestSearch_CompiledAPIs(t *testing.T) {
	runner := sandboxtest.Runner(t)
	trixie, sid := sandboxtest.Env(t, "trixie-sci"), sandboxtest.Env(t, "sid-onnx")
	cand := func(env *sandbox.Environment, name, kind, ext string) bundles.Candidate {
		return bundles.Candidate{APIName: name, Kind: kind, Library: "numpy", Domain: "data_science",
			NewVersion: env.Manifest.Versions["numpy"], Extra: bundles.Extra{Extension: ext}}
	}
	compiled, _, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: trixie, Workers: 1, Candidates: []bundles.Candidate{
		cand(trixie, "numpy.matvec", bundles.KindFunction, bundles.ExtensionNoSource),
		cand(trixie, "numpy.vecmat", bundles.KindFunction, bundles.ExtensionNoSource),
		cand(trixie, "numpy.bitwise_count", bundles.KindFunction, bundles.ExtensionNoSource),
		cand(trixie, "numpy.dtypes.StringDType", bundles.KindClass, bundles.ExtensionNoSource),
	}})
	if err != nil {
		t.Fatal(err)
	}
	newer, _, err := bundles.Extract(t.Context(), runner, bundles.ExtractConfig{Env: sid, Workers: 1,
		Candidates: []bundles.Candidate{cand(sid, "numpy.strings.slice", bundles.KindFunction, "")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(compiled) != 4 || len(newer) != 1 {
		t.Fatalf("extracted %d compiled and %d sid bundles; want 4 and 1", len(compiled), len(newer))
	}
	dir := filepath.Join(t.TempDir(), "idx")
	bs := append(append(readTestBundles(t), compiled...), newer...)
	if _, err := index.Build(t.Context(), dir, bs, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, tc := range []struct{ query, want string }{
		{"numpy.matvec", "numpy.matvec"},
		{"np.vecmat", "numpy.vecmat"},
		{"numpy.strings.slice", "numpy.strings.slice"},
		{"StringDType", "numpy.dtypes.StringDType"},
		{"matrix-vector product of a stack of matrices and vectors", "numpy.matvec"},
		{"vector-matrix product of stacks of vectors and matrices", "numpy.vecmat"},
		{"slice each string in an array from start to stop", "numpy.strings.slice"},
		{"variable-width UTF-8 string dtype for numpy arrays", "numpy.dtypes.StringDType"},
		{"count the number of 1 bits in each integer", "numpy.bitwise_count"},
	} {
		hits, err := ix.Search(t.Context(), index.Query{Text: tc.query, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].APIName != tc.want {
			t.Errorf("Search(%q) = %v; want %s first", tc.query, names(hits), tc.want)
		}
	}
}
