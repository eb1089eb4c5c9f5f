package index_test

import (
	"testing"

	"github.com/novelapi/novelapi/index"
)

// Stats reports how many latent dimensions the SVD could fit: all K when
// the corpus is large enough, at most the units fitted on otherwise (the
// 18 test bundles give 36 S and M units, fewer than K=64).
func TestIndex_StatsLSAFittedDims(t *testing.T) {
	bs := readTestBundles(t)
	for _, tt := range []struct {
		k         int
		wantAllK  bool
		maxFitted int
	}{{16, true, 16}, {64, false, 2 * len(bs)}} {
		cfg := index.LSAConfig{K: tt.k, MinDF: 1}
		dir, _ := buildLSA(t, bs, cfg)
		s := openIndex(t, dir, index.NewLSAEmbedder(cfg)).Stats()
		if s.LSA == nil {
			t.Fatalf("K=%d: Stats().LSA is nil", tt.k)
		}
		if s.LSA.K != tt.k || s.LSA.Fitted <= 0 || s.LSA.Fitted > tt.maxFitted || (s.LSA.Fitted == tt.k) != tt.wantAllK {
			t.Errorf("K=%d: LSA = %+v; want K %d, fitted dims in 1..%d, all K fitted: %v", tt.k, *s.LSA, tt.k, tt.maxFitted, tt.wantAllK)
		}
	}
}
