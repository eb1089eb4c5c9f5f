package index_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// testLSA is the LSA setting of these tests: the 18 test bundles have
// about 70 units, too few for the default 192 dimensions, and most words
// occur in one unit only. latentLSA has no hashed features and is fitted
// on every component, code included.
var (
	testLSA   = index.LSAConfig{K: 16, MinDF: 1}
	latentLSA = index.LSAConfig{K: 16, MinDF: 1, HashWeight: -1, Components: index.AllComponents}
)

// buildLSA builds bs into a fresh directory with the LSA embedder of cfg
// and returns the directory and the manifest's embedder ID.
func buildLSA(t *testing.T, bs []bundles.Bundle, cfg index.LSAConfig) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "idx")
	m, err := index.Build(t.Context(), dir, bs, index.BuildConfig{Embedder: index.NewLSAEmbedder(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m.Embedder.ID
}

func openIndex(t *testing.T, dir string, emb index.Embedder) *index.Index {
	t.Helper()
	ix, err := index.Open(dir, index.OpenOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// A word that the documentation of the target uses only in its code
// (implementation or examples), never in the signature or mechanism units
// the vector leg scores, finds it through the words it co-occurs with.
func TestLSAEmbedder_CoOccurrence(t *testing.T) {
	bs := readTestBundles(t)
	dir, _ := buildLSA(t, bs, latentLSA)
	ix := openIndex(t, dir, nil)
	tests := []struct{ word, want string }{
		{"hermitian", "numpy.linalg.svdvals"},
		{"swapaxes", "numpy.matrix_transpose"},
		{"moveaxis", "numpy.unstack"},
		{"loguniform", "scipy.stats.make_distribution"},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			b, _ := ix.Bundle(tt.want)
			sm := strings.ToLower(bundles.RenderComponents(b, bundles.CompS|bundles.CompM))
			if strings.Contains(sm, tt.word) {
				t.Fatalf("%s's S or M unit contains %q: not a co-occurrence test", tt.want, tt.word)
			}
			hits, err := ix.Search(t.Context(), index.Query{Text: tt.word, Retriever: index.Vector, K: 3})
			if err != nil {
				t.Fatal(err)
			}
			if got := names(hits); len(got) == 0 || got[0] != tt.want {
				t.Errorf("Search(%q, vector) = %v; want %s first", tt.word, got, tt.want)
			}
		})
	}
}

func TestLSAEmbedder_Persistence(t *testing.T) {
	bs := readTestBundles(t)
	dir, id := buildLSA(t, bs, testLSA)
	if !strings.HasPrefix(id, "lsa-v1-k16-h50-") || len(id) != len("lsa-v1-k16-h50-")+8 {
		t.Fatalf("embedder ID %q; want lsa-v1-k16-h50-<8 hex digits>", id)
	}
	if _, id2 := buildLSA(t, bs, testLSA); id2 != id {
		t.Errorf("second fit on the same bundles gave %s, first %s; want the same model", id2, id)
	}
	tests := []struct {
		name   string
		emb    index.Embedder
		wantOn bool
	}{
		{"Recorded", nil, true},
		{"SameSettings", index.NewLSAEmbedder(testLSA), true},
		{"SameSettingsOtherFitOptions", index.NewLSAEmbedder(index.LSAConfig{K: 16, Sample: 10, HashWeight: 0.5}), true},
		{"OtherK", index.NewLSAEmbedder(index.LSAConfig{K: 8}), false},
		{"InvSigma", index.NewLSAEmbedder(index.LSAConfig{K: 16, InvSigma: true}), false},
		{"OtherHashWeight", index.NewLSAEmbedder(index.LSAConfig{K: 16, HashWeight: 0.3}), false},
		{"LatentOnly", index.NewLSAEmbedder(latentLSA), false},
		{"Hash", index.NewHashEmbedder(0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := openIndex(t, dir, tt.emb)
			if ix.VectorEnabled() != tt.wantOn {
				t.Fatalf("VectorEnabled() = %v; want %v (notices %v)", ix.VectorEnabled(), tt.wantOn, ix.Notices())
			}
			if !tt.wantOn {
				if len(ix.Notices()) == 0 {
					t.Error("vector leg off without a notice")
				}
				hits, err := ix.Search(t.Context(), index.Query{Text: "singular values of a matrix"})
				if err != nil || len(hits) == 0 {
					t.Errorf("hybrid search with the vector leg off = %v, %v; want lexical hits", names(hits), err)
				}
				return
			}
			if got := ix.Stats().QueryEmbedder; got != id {
				t.Errorf("query embedder %s; want the recorded %s", got, id)
			}
			hits, err := ix.Search(t.Context(), index.Query{Text: "hermitian", Retriever: index.Vector, K: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(names(hits), "numpy.linalg.svdvals") {
				t.Errorf("vector search after reload = %v; want numpy.linalg.svdvals", names(hits))
			}
		})
	}
}

func TestLSAEmbedder_AddFoldsIn(t *testing.T) {
	bs := readTestBundles(t)
	i := slices.IndexFunc(bs, func(b bundles.Bundle) bool { return b.APIName == "numpy.linalg.svdvals" })
	rest := slices.Delete(slices.Clone(bs), i, i+1)
	dir, id := buildLSA(t, rest, testLSA)
	for _, tt := range []struct {
		name string
		emb  index.Embedder
	}{{"Recorded", nil}, {"SameSettings", index.NewLSAEmbedder(testLSA)}} {
		m, err := index.Add(t.Context(), dir, bs[i:i+1], index.BuildConfig{Embedder: tt.emb})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if m.Embedder.ID != id || m.Bundles != len(bs) {
			t.Errorf("%s: after add: embedder %s, %d bundles; want %s (no refit), %d", tt.name, m.Embedder.ID, m.Bundles, id, len(bs))
		}
	}
	ix := openIndex(t, dir, nil)
	hits, err := ix.Search(t.Context(), index.Query{Text: "singular values of a stack of matrices", Retriever: index.Vector, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names(hits), "numpy.linalg.svdvals") {
		t.Errorf("vector search for the added bundle = %v; want numpy.linalg.svdvals", names(hits))
	}
	for _, emb := range []index.Embedder{index.NewHashEmbedder(0), index.NewLSAEmbedder(index.LSAConfig{K: 8})} {
		if _, err := index.Add(t.Context(), dir, bs[:1], index.BuildConfig{Embedder: emb}); !errors.Is(err, index.ErrEmbedderMismatch) {
			t.Errorf("add with %s: err = %v; want ErrEmbedderMismatch", emb.ID(), err)
		}
	}
}

func TestLSAEmbedder_Unfitted(t *testing.T) {
	tests := []struct {
		name    string
		cfg     index.LSAConfig
		wantID  string
		wantDim int
	}{
		{"Default", index.LSAConfig{}, "lsa-v1-k192-h50", index.DefaultLSAK + index.DefaultHashDim},
		{"HashWeight", index.LSAConfig{K: 128, HashWeight: 0.3, HashDim: 256}, "lsa-v1-k128-h30d256", 128 + 256},
		{"LatentOnly", index.LSAConfig{HashWeight: -1, InvSigma: true}, "lsa-v1-k192-inv", index.DefaultLSAK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := index.NewLSAEmbedder(tt.cfg)
			if got := e.ID(); got != tt.wantID {
				t.Errorf("ID() = %q; want %q", got, tt.wantID)
			}
			if got := e.Dim(); got != tt.wantDim {
				t.Errorf("Dim() = %d; want %d", got, tt.wantDim)
			}
			if _, err := e.Embed(t.Context(), []string{"x"}); err == nil {
				t.Error("Embed on an unfitted embedder succeeded")
			}
		})
	}
}
