package index_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
)

func readTestBundles(t testing.TB) []bundles.Bundle {
	t.Helper()
	bs, _, err := bundles.ReadBundles("testdata/bundles.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return bs
}

// buildIndex builds the test bundles into a fresh directory and opens it.
func buildIndex(t testing.TB) (string, *index.Index) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "idx")
	if _, err := index.Build(context.Background(), dir, readTestBundles(t), index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return dir, ix
}

func names(hits []index.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.APIName)
	}
	return out
}

func TestIndex_SearchFindsAPI(t *testing.T) {
	_, ix := buildIndex(t)
	tests := []struct {
		name, query string
		retriever   index.Retriever
		want        string
		top         int // want within the first top hits
	}{
		{"ExactLeaf", "read_csv dtype_backend", index.Hybrid, "pandas.read_csv", 1},
		{"ExactClassMethod", "Series.case_when", index.BM25, "pandas.Series.case_when", 1},
		{"ExactImportAlias", "np.linalg.matrix_norm", index.Hybrid, "numpy.linalg.matrix_norm", 1},
		{"SingleWordLeaf", "unstack", index.Hybrid, "numpy.unstack", 1},
		{"NLSplit", "split an array into a tuple of arrays along an axis", index.Hybrid, "numpy.unstack", 1},
		{"NLRunningTotal", "running total of array elements with a leading zero", index.Hybrid, "numpy.cumulative_sum", 3},
		{"NLDerivative", "numerically estimate the slope of a function at many points with finite differences", index.Hybrid, "scipy.differentiate.derivative", 3},
		{"NLPopcount", "count the number of set bits in each integer", index.Hybrid, "numpy.bitwise_count", 3},
		{"NLSQLCase", "SQL style case when replacement of values in a series by conditions", index.Hybrid, "pandas.Series.case_when", 1},
		{"VectorNL", "singular values of a matrix without the vectors", index.Vector, "numpy.linalg.svdvals", 3},
		{"PaperNL", "singular values of a matrix without the vectors", index.Paper, "numpy.linalg.svdvals", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := ix.Search(t.Context(), index.Query{Text: tt.query, Retriever: tt.retriever})
			if err != nil {
				t.Fatal(err)
			}
			got := names(hits)
			if i := slices.Index(got, tt.want); i < 0 || i >= tt.top {
				t.Errorf("Search(%q, %s) = %v; want %s in the first %d", tt.query, tt.retriever, got, tt.want, tt.top)
			}
		})
	}
}

// An API the query names ranks first, and its score is the ranker's,
// without the bonus (1000) that put it first.
func TestIndex_ExactScore(t *testing.T) {
	_, ix := buildIndex(t)
	hits, err := ix.Search(t.Context(), index.Query{Text: "np.linalg.matrix_norm"})
	if err != nil {
		t.Fatal(err)
	}
	// The ranker's weights sum to less than 30 and its features are at
	// most ln(1 + BM25) ≈ 4.
	if len(hits) < 2 || !hits[0].Exact || hits[0].APIName != "numpy.linalg.matrix_norm" || hits[0].Score > 120 || hits[1].Exact {
		t.Errorf("hits = %+v; want matrix_norm first, exact, with a score below 120", hits)
	}
}

// A query none of whose words is in any unit gets no hybrid answer (the
// vector leg alone would rank character n-gram noise); the vector
// retriever still answers.
func TestIndex_NoWordMatches(t *testing.T) {
	_, ix := buildIndex(t)
	for _, q := range []string{"frobnicate the quuxer", "moyenne glissante", "数据框 滚动 平均"} {
		hits, err := ix.Search(t.Context(), index.Query{Text: q})
		if err != nil || len(hits) != 0 {
			t.Errorf("hybrid %q = %v, %v; want no hits", q, names(hits), err)
		}
	}
	if hits, err := ix.Search(t.Context(), index.Query{Text: "frobnicate the quuxer", Retriever: index.Vector}); err != nil || len(hits) == 0 {
		t.Errorf("vector retriever: %v, %v; want its nearest vectors", names(hits), err)
	}
}

// The vector retriever scores hits by cosine similarity, best first.
func TestIndex_VectorScoresAreSimilarities(t *testing.T) {
	_, ix := buildIndex(t)
	hits, err := ix.Search(t.Context(), index.Query{Text: "singular values of a matrix", Retriever: index.Vector, K: 5})
	if err != nil || len(hits) < 2 {
		t.Fatalf("hits %v, err %v", names(hits), err)
	}
	for i, h := range hits {
		if h.Score <= 0 || h.Score > 1 || i > 0 && h.Score > hits[i-1].Score {
			t.Errorf("hit %d %s score %v; want cosines in (0, 1], descending", i+1, h.APIName, h.Score)
		}
	}
}

// In a pasted traceback the error line, not the first line, names the API.
func TestIndex_TracebackErrorLine(t *testing.T) {
	_, ix := buildIndex(t)
	q := "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n    total = np.cumsum(x)\n" +
		"AttributeError: use `np.cumulative_sum` with include_initial=True instead\n"
	hits, err := ix.Search(t.Context(), index.Query{Text: q})
	if err != nil || len(hits) == 0 || hits[0].APIName != "numpy.cumulative_sum" || !hits[0].Exact {
		t.Errorf("traceback: %v, %v; want numpy.cumulative_sum first, exact", names(hits), err)
	}
}

func TestIndex_SearchFilters(t *testing.T) {
	_, ix := buildIndex(t)
	hits, err := ix.Search(t.Context(), index.Query{Text: "norm of a matrix or vector", Library: "numpy", Components: []string{"E"}, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range hits {
		if h.Library != "numpy" || !slices.Equal(h.Components, []string{"E"}) {
			t.Errorf("hit %s %s %v violates library=numpy components=E", h.APIName, h.Library, h.Components)
		}
	}
	// An exact name that the filter excludes must not come back.
	hits, err = ix.Search(t.Context(), index.Query{Text: "pandas.read_csv", Library: "scipy"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(hits), "pandas.read_csv") {
		t.Errorf("library=scipy returned pandas.read_csv: %v", names(hits))
	}
	hits, err = ix.Search(t.Context(), index.Query{Text: "changed signature", Library: "pandas", Version: "2.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Version != "2.2.3" {
			t.Errorf("version filter: got %s %s", h.APIName, h.Version)
		}
	}
}

func TestIndex_SearchBadInput(t *testing.T) {
	_, ix := buildIndex(t)
	tests := []struct {
		name    string
		q       index.Query
		wantErr error
		wantArg string
	}{
		{"Empty", index.Query{Text: "   "}, index.ErrEmptyQuery, ""},
		{"Huge", index.Query{Text: strings.Repeat("array ", 5000)}, index.ErrQueryTooLong, ""},
		{"UnknownLibrary", index.Query{Text: "x", Library: "torch"}, nil, "library"},
		{"UnknownVersion", index.Query{Text: "x", Library: "numpy", Version: "1.0"}, nil, "version"},
		{"UnknownComponent", index.Query{Text: "x", Components: []string{"Z"}}, nil, "component"},
		{"UnknownRetriever", index.Query{Text: "x", Retriever: "magic"}, nil, "retriever"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ix.Search(t.Context(), tt.q)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v; want %v", err, tt.wantErr)
			}
			if tt.wantArg != "" {
				ae, ok := errors.AsType[*index.ArgError](err)
				if !ok || ae.Arg != tt.wantArg || len(ae.Valid) == 0 {
					t.Errorf("err = %v; want *ArgError for %s listing valid values", err, tt.wantArg)
				}
			}
		})
	}
}

func TestIndex_BundleAliases(t *testing.T) {
	_, ix := buildIndex(t)
	for _, name := range []string{"pandas.read_csv", "pandas.io.parsers.readers.read_csv", "PANDAS.READ_CSV"} {
		b, ok := ix.Bundle(name)
		if !ok || b.APIName != "pandas.read_csv" {
			t.Errorf("Bundle(%q) = %v, %v; want pandas.read_csv", name, b, ok)
		}
	}
	if _, ok := ix.Bundle("pandas.nope"); ok {
		t.Error("Bundle(pandas.nope) found something")
	}
	if got := len(ix.Names()); got != 18 {
		t.Errorf("len(Names()) = %d; want 18", got)
	}
}

func TestIndex_Stats(t *testing.T) {
	_, ix := buildIndex(t)
	s := ix.Stats()
	if s.Bundles != 18 || s.Libraries["numpy"] != 9 || s.Novelty["modified"] != 1 || s.Scoring != "bm25" {
		t.Errorf("stats = %+v", s)
	}
	// The default embedder: LSA fitted on the units, hashed features concatenated.
	if !s.VectorEnabled || !strings.HasPrefix(s.Embedder.ID, "lsa-v1-k192-h50-") || s.Embedder.Dim != index.DefaultLSAK+index.DefaultHashDim || s.QueryEmbedder != s.Embedder.ID {
		t.Errorf("embedder stats = %+v", s)
	}
	if s.LSA == nil || s.LSA.K != index.DefaultLSAK || s.LSA.Units != 36 || s.LSA.Terms == 0 {
		t.Errorf("LSA fit = %+v; want K %d fitted on the 36 S and M units", s.LSA, index.DefaultLSAK)
	}
	if s.Components["C"] != 16 || s.Components["S"] != 18 {
		t.Errorf("components = %v", s.Components)
	}
}

func TestIndex_RebuildKeepsOpenReaders(t *testing.T) {
	dir, old := buildIndex(t)
	bs := readTestBundles(t)
	// Rebuild with only numpy; the open index still serves all libraries.
	var numpy []bundles.Bundle
	for _, b := range bs {
		if b.Library == "numpy" {
			numpy = append(numpy, b)
		}
	}
	if _, err := index.Build(t.Context(), dir, numpy, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	hits, err := old.Search(t.Context(), index.Query{Text: "pandas.read_csv"})
	if err != nil || len(hits) == 0 || hits[0].APIName != "pandas.read_csv" {
		t.Fatalf("old reader after rebuild: %v, %v", names(hits), err)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := ix.Stats().Bundles; got != 9 {
		t.Errorf("new generation has %d bundles; want 9", got)
	}
	// A failed build (bad bundle) leaves the live generation in place.
	if _, err := index.Build(t.Context(), dir, []bundles.Bundle{{APIName: "x"}}, index.BuildConfig{}); !errors.Is(err, index.ErrBadBundle) {
		t.Fatalf("bad build err = %v", err)
	}
	ix2, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if got := ix2.Stats().Bundles; got != 9 {
		t.Errorf("after failed build: %d bundles; want 9", got)
	}
	// Once the old reader closes, the next build removes its generation.
	old.Close()
	if _, err := index.Build(t.Context(), dir, numpy, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	gens, _ := filepath.Glob(filepath.Join(dir, "gen-*"))
	if len(gens) > 3 {
		t.Errorf("stale generations kept: %v", gens)
	}
}

func TestIndex_Add(t *testing.T) {
	bs := readTestBundles(t)
	dir := filepath.Join(t.TempDir(), "idx")
	if _, err := index.Build(t.Context(), dir, bs[:10], index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	changed := bs[0]
	changed.Mechanism.Text = "zebra giraffe unique marker text"
	m, err := index.Add(t.Context(), dir, append([]bundles.Bundle{changed}, bs[10:]...), index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Bundles != 18 {
		t.Errorf("after add: %d bundles; want 18", m.Bundles)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, q := range []string{"zebra giraffe", "SQL case when replacement in a series"} {
		hits, err := ix.Search(t.Context(), index.Query{Text: q, K: 1})
		if err != nil || len(hits) == 0 {
			t.Fatalf("Search(%q): %v %v", q, hits, err)
		}
	}
	hits, _ := ix.Search(t.Context(), index.Query{Text: "zebra giraffe", K: 1, Retriever: index.BM25})
	if hits[0].APIName != changed.APIName {
		t.Errorf("replaced bundle not searchable: %v", names(hits))
	}
	if _, err := index.Add(t.Context(), dir, bs[:1], index.BuildConfig{Embedder: index.NewHashEmbedder(64)}); !errors.Is(err, index.ErrEmbedderMismatch) {
		t.Errorf("add with other embedder: err = %v; want ErrEmbedderMismatch", err)
	}
}

func TestOpen_Errors(t *testing.T) {
	tmp := t.TempDir()
	if _, err := index.Open(filepath.Join(tmp, "missing"), index.OpenOptions{}); !errors.Is(err, index.ErrNoIndex) {
		t.Errorf("missing dir: %v", err)
	}
	half := filepath.Join(tmp, "half")
	os.MkdirAll(filepath.Join(half, "gen-000001"), 0o755)
	if _, err := index.Open(half, index.OpenOptions{}); !errors.Is(err, index.ErrNoIndex) {
		t.Errorf("half-built dir: %v", err)
	}
}

func TestOpen_EmbedderMismatchKeepsLexical(t *testing.T) {
	dir, _ := buildIndex(t)
	ix, err := index.Open(dir, index.OpenOptions{Embedder: index.NewHashEmbedder(128)})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.VectorEnabled() || len(ix.Notices()) == 0 {
		t.Errorf("vector leg on with a mismatched embedder; notices %v", ix.Notices())
	}
	hits, err := ix.Search(t.Context(), index.Query{Text: "read_csv"})
	if err != nil || len(hits) == 0 || hits[0].APIName != "pandas.read_csv" {
		t.Errorf("hybrid without vectors: %v %v", names(hits), err)
	}
	_, err = ix.Search(t.Context(), index.Query{Text: "read_csv", Retriever: index.Vector})
	if !errors.Is(err, index.ErrVectorDisabled) || strings.Count(err.Error(), "off") != 1 {
		t.Errorf("vector retriever: err = %v; want ErrVectorDisabled saying once that the leg is off", err)
	}
}

// TestBuiltCurrent checks the test `up` uses to rebuild an index left by
// an older default embedder or older unit rules.
func TestBuiltCurrent(t *testing.T) {
	bs := readTestBundles(t)
	def := filepath.Join(t.TempDir(), "def")
	if _, err := index.Build(t.Context(), def, bs, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	hash := filepath.Join(t.TempDir(), "hash")
	if _, err := index.Build(t.Context(), hash, bs, index.BuildConfig{Embedder: index.NewHashEmbedder(0)}); err != nil {
		t.Fatal(err)
	}
	// An index whose manifest predates the unit rules' record.
	old := filepath.Join(t.TempDir(), "old")
	if _, err := index.Build(t.Context(), old, bs, index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	cur, err := os.ReadFile(filepath.Join(old, "CURRENT"))
	if err != nil {
		t.Fatal(err)
	}
	mpath := filepath.Join(old, strings.TrimSpace(string(cur)), "manifest.json")
	data, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), fmt.Sprintf(`"unit_rules": %d`, index.UnitRules), `"unit_rules": 1`, 1))
	if err := os.WriteFile(mpath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{def: true, hash: false, old: false} {
		got, err := index.BuiltCurrent(dir)
		if err != nil || got != want {
			t.Errorf("BuiltCurrent(%s) = %v, %v; want %v", filepath.Base(dir), got, err, want)
		}
	}
	if _, err := index.BuiltCurrent(t.TempDir()); err == nil {
		t.Error("an empty directory: no error")
	}
}

// K only truncates one ranking: the first hits of a longer list are the
// hits of a shorter one, in the same order and with the same scores. The
// index has more units than a leg returns (300 bundles), as when legs grew
// with K and reordered the first hits.
func TestSearch_KTruncates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	if _, err := index.Build(t.Context(), dir, replicated(t, 300), index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, q := range []string{"split an array into a tuple of arrays along an axis", "read_csv dtype_backend", "matrix norm", "rolling window"} {
		for _, r := range []index.Retriever{index.Hybrid, index.BM25, index.Vector} {
			short, err := ix.Search(t.Context(), index.Query{Text: q, Retriever: r, K: 3})
			if err != nil {
				t.Fatal(err)
			}
			long, err := ix.Search(t.Context(), index.Query{Text: q, Retriever: r, K: 50})
			if err != nil {
				t.Fatal(err)
			}
			if len(long) < len(short) || !reflect.DeepEqual(short, long[:len(short)]) {
				t.Errorf("%s %q: K=3 gives %+v; the first of K=50 are %+v (names and scores must match)", r, q, short, long[:min(len(long), len(short))])
			}
		}
	}
}

// The names of a class's public instance (Provenance.Instances, Stage 2
// rules 2) name the class exactly: users write scipy.stats.triang, not
// scipy.stats.distributions.triang_gen.
func TestIndex_InstanceNamesAreExact(t *testing.T) {
	bs := readTestBundles(t)
	extra, _, err := bundles.ReadBundles("testdata/instances.jsonl", jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "idx")
	if _, err := index.Build(t.Context(), dir, append(bs, extra...), index.BuildConfig{}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for q, want := range map[string]string{
		"scipy.stats.triang":              "scipy.stats.distributions.triang_gen",
		"pdf of scipy.stats.cauchy at 0":  "scipy.stats.distributions.cauchy_gen",
		"stats.cauchy":                    "scipy.stats.distributions.cauchy_gen",
		"scipy.stats.irwinhall.fit(data)": "scipy.stats.distributions.irwinhall_gen.fit",
		// An inherited attribute of an instance names its class.
		"scipy.stats.cauchy.fit(data)": "scipy.stats.distributions.cauchy_gen",
		"stats.triang.pdf(x, c)":       "scipy.stats.distributions.triang_gen",
		"stats.cauchy.logpdf":          "scipy.stats.distributions.cauchy_gen",
		"triang":                       "scipy.stats.distributions.triang_gen", // the leaf as the whole query
	} {
		hits, err := ix.Search(t.Context(), index.Query{Text: q, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].APIName != want || !hits[0].Exact {
			t.Errorf("Search(%q) = %v; want %s first, exact", q, names(hits), want)
		}
	}
	// A bare receiver is not enough ("f.write(" is a file), nor is an
	// attribute of an unknown one.
	for _, q := range []string{"with open(p) as cauchy: cauchy.write(s)", "scipy.stats.norm.pdf(x)",
		// An instance's leaf called in a sentence is a function of the
		// user's, not the distribution.
		"apply triang(x) to every element", "compute `cauchy` of the residuals"} {
		hits, err := ix.Search(t.Context(), index.Query{Text: q, K: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Exact {
				t.Errorf("Search(%q): %s exact; want no exact hit", q, h.APIName)
			}
		}
	}
}

// A private library's bundles added under the name and version of indexed
// Debian ones are kept beside them, each labelled by its source, and
// BundleFrom chooses one (docs/private.md §4); a build cancelled before it
// switches leaves the live generation.
func TestIndex_PrivateBesideDebian(t *testing.T) {
	dir, _ := buildIndex(t)
	bs := readTestBundles(t)
	var priv []bundles.Bundle
	for _, b := range bs {
		if b.Library == "numpy" {
			p := *b.Provenance
			p.Source, p.Novelty = "/src/numpy-fork", bundles.NoveltyPrivate
			b.Provenance = &p
			priv = append(priv, b)
		}
	}
	m, err := index.Add(t.Context(), dir, priv, index.BuildConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Bundles != len(bs)+len(priv) {
		t.Errorf("after adding %d private numpy bundles: %d bundles; want %d", len(priv), m.Bundles, len(bs)+len(priv))
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := index.Replace(ctx, dir, func(b *bundles.Bundle) bool { return b.Private() }, nil, index.BuildConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled removal: err = %v; want context.Canceled", err)
	}
	ix, err := index.Open(dir, index.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got := ix.Manifest().Generation; got != m.Generation {
		t.Errorf("after a cancelled removal %s is live; want %s", got, m.Generation)
	}
	for _, tt := range []struct{ source, want string }{
		{"", "debian"}, {"debian", "debian"}, {"private", "private:/src/numpy-fork"}, {"private:/src/numpy-fork", "private:/src/numpy-fork"},
	} {
		b, ok := ix.BundleFrom("numpy.unique_counts", "2.2.4", tt.source)
		if !ok || index.SourceOf(b) != tt.want {
			t.Errorf("BundleFrom(numpy.unique_counts, 2.2.4, %q) = %v; want a bundle from %s", tt.source, ok, tt.want)
		}
	}
	if _, ok := ix.BundleFrom("numpy.unique_counts", "2.2.4", "private:/src/other"); ok {
		t.Errorf("BundleFrom with a source nothing came from found a bundle")
	}
	hits, err := ix.Search(t.Context(), index.Query{Text: "numpy.unique_counts", Library: "numpy", K: 4})
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, h := range hits {
		if h.APIName == "numpy.unique_counts" {
			sources = append(sources, h.Source)
		}
	}
	slices.Sort(sources)
	if want := []string{"debian", "private:/src/numpy-fork"}; !slices.Equal(sources, want) {
		t.Errorf("hits of numpy.unique_counts from %v; want %v", sources, want)
	}
}
