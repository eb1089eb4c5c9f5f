package index_test

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
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

// Build warns when fewer than half the LSA dimensions asked for can be
// fitted, and not when they can.
func TestBuild_WarnsUnfittableLSADims(t *testing.T) {
	bs := readTestBundles(t)
	for _, tt := range []struct {
		k    int
		warn bool
	}{{400, true}, {16, false}} {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		dir := filepath.Join(t.TempDir(), "idx")
		if _, err := index.Build(t.Context(), dir, bs, index.BuildConfig{Embedder: index.NewLSAEmbedder(index.LSAConfig{K: tt.k}), Logger: log}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), "fewer latent dimensions"); got != tt.warn {
			t.Errorf("K=%d: warning %v; want %v\n%s", tt.k, got, tt.warn, buf.String())
		}
	}
}
