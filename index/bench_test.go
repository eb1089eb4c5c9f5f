package index_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

func replicated(tb testing.TB, n int) []bundles.Bundle {
	base := readTestBundles(tb)
	out := make([]bundles.Bundle, 0, n)
	for i := 0; len(out) < n; i++ {
		b := base[i%len(base)]
		if r := i / len(base); r > 0 {
			b.APIName += "_r" + strconv.Itoa(r)
			b.SName = b.APIName
			b.Provenance = &bundles.Provenance{Library: b.Library, Version: "1.0"}
		}
		out = append(out, b)
	}
	return out
}

// BenchmarkBuild measures building an index of 1000 bundles with the
// default embedder (target: >= 500 bundles/s, as bench/index checks).
func BenchmarkBuild(b *testing.B) {
	bs := replicated(b, 1000)
	for i := 0; b.Loop(); i++ {
		dir := filepath.Join(b.TempDir(), strconv.Itoa(i))
		if _, err := index.Build(context.Background(), dir, bs, index.BuildConfig{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(bs)*b.N)/b.Elapsed().Seconds(), "bundles/s")
}

// BenchmarkSearch measures hybrid queries on 1000 bundles; bench/index.sh
// reports p50/p99 at 1k and 10k.
func BenchmarkSearch(b *testing.B) {
	for _, r := range []index.Retriever{index.Hybrid, index.BM25, index.Vector} {
		b.Run(string(r), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "idx")
			if _, err := index.Build(context.Background(), dir, replicated(b, 1000), index.BuildConfig{}); err != nil {
				b.Fatal(err)
			}
			ix, err := index.Open(dir, index.OpenOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer ix.Close()
			qs := []string{"split an array into a tuple of arrays along an axis", "read_csv dtype_backend", "running total with initial zero", "Series.case_when"}
			for i := 0; b.Loop(); i++ {
				if _, err := ix.Search(context.Background(), index.Query{Text: qs[i%len(qs)], Retriever: r}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
