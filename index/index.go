package index

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/pyversion"
)

// ManifestFormat is the on-disk format version written in every manifest.
const ManifestFormat = 2 // 2: lexical-code.bleve holds the C units

// UnitRules versions how bundles become retrieval units (unitsOf,
// componentText), recorded in each manifest and in the index's stamp: an
// index made under other rules is rebuilt (docs/changelog.md).
const UnitRules = 3

// Query limits and defaults.
const (
	DefaultK      = 5
	MaxK          = 100
	MaxQueryBytes = 16 << 10 // longer queries fail with ErrQueryTooLong
)

// A Retriever selects how [Index.Search] ranks APIs.
type Retriever string

// The retrievers. Every retrieval figure is reported for all four.
const (
	Hybrid Retriever = "hybrid" // RRF of BM25 and vectors, exact names first (default)
	BM25   Retriever = "bm25"   // lexical leg only (plus exact names)
	Vector Retriever = "vector" // vector leg only
	Paper  Retriever = "paper"  // the published baseline, docs/protocol.md §6
)

// Retrievers lists the valid retrievers.
var Retrievers = []Retriever{Hybrid, BM25, Vector, Paper}

// A Query asks for the APIs matching Text. Zero fields mean "no filter" or
// the default.
type Query struct {
	Text       string    // words and/or identifiers; required, at most MaxQueryBytes
	Library    string    // exact library name ("numpy"); "" = all
	Version    string    // exact distribution version ("2.2.4"); "" = all
	Components []string  // subset of S, E, M, C; nil = all. Ignored by Paper.
	K          int       // APIs to return; 0 = DefaultK, capped at MaxK
	Retriever  Retriever // "" = Hybrid
	// Condition is the knowledge condition rendered by the Paper retriever
	// (docs/protocol.md §2.1); "" = Full. Ignored by the others.
	Condition bundles.Condition
	// Domain restricts the Paper pool to bundles of one domain, as the
	// protocol's per-domain indexes do (§6); "" = all. Ignored by the others.
	Domain string
}

// A Hit is one API found by a search, best first.
type Hit struct {
	APIName string `json:"api_name"`
	Library string `json:"library"`
	Version string `json:"version"`
	Novelty string `json:"novelty"` // NoveltyNew, NoveltyModified or NoveltyPrivate
	// Source labels where the bundle came from ([SourceOf]): a private
	// library and a Debian one of the same name and version are two hits.
	Source string `json:"source,omitempty"`
	// Score is the ranker's score (ranker.go: a weighted sum of features
	// of the legs' matches, unbounded, negative for the weakest); only the
	// order within one answer is meaningful. The bonus that puts APIs the
	// query names first is not included: Exact says so. Under the vector
	// retriever it is the cosine similarity of the API's best unit (−1…1).
	Score float64 `json:"score"`
	Rank  int     `json:"rank"` // 1-based
	// Components lists the matched components (S, E, M, C order); for an
	// API found only by its name, the requested components it has.
	Components []string `json:"components"`
	// Exact reports whether the query named this API (qualified name,
	// alias, Class.method suffix or identifier-shaped leaf).
	Exact bool `json:"exact,omitempty"`
	// Instances lists the public instances users call for this class, or
	// for the class of this method ("scipy.stats.cauchy" for
	// scipy.stats.distributions.cauchy_gen), shortest first
	// (bundles.Provenance.Instances); empty for other APIs.
	Instances []string `json:"instances,omitempty"`
	// Chunks holds, for the Paper retriever, the texts of this API's chunks
	// among the top K chunks, in rank order.
	Chunks []string `json:"chunks,omitempty"`
}

// EmbedderInfo identifies the embedder that produced an index's vectors.
type EmbedderInfo struct {
	ID  string `json:"id"`
	Dim int    `json:"dim"`
}

// A Manifest describes one index generation (DIR/gen-N/manifest.json).
type Manifest struct {
	Format     int                       `json:"format"`
	Generation string                    `json:"generation"`
	Created    time.Time                 `json:"created"`
	Scoring    string                    `json:"lexical_scoring"` // "bm25"
	Embedder   EmbedderInfo              `json:"embedder"`
	Bundles    int                       `json:"bundles"`
	Units      int                       `json:"units"`
	Libraries  map[string]int            `json:"libraries"`  // bundles per library
	Versions   map[string]map[string]int `json:"versions"`   // bundles per library, version
	Components map[string]int            `json:"components"` // units per component
	Novelty    map[string]int            `json:"novelty"`    // bundles per novelty type
	// UnitRules is the UnitRules of the oldest units in the generation
	// (index add keeps the base generation's units); 0 before it was
	// recorded.
	UnitRules int `json:"unit_rules,omitempty"`
	// Skipped records the input the build left out (bad bundle lines
	// skipped by index build --skip-bad), nil when none: a generation
	// with Skipped is partial.
	Skipped *Omitted `json:"skipped,omitempty"`
	// Cut records the bundles whose text the build cut to its [Limits],
	// nil when none.
	Cut *Omitted `json:"cut,omitempty"`
}

// MaxOmittedItems bounds [Omitted.Items]; further items are only counted.
const MaxOmittedItems = 100

// Omitted describes what an index build left out of its input: bundle
// lines skipped (Manifest.Skipped) or bundle text cut to [Limits]
// (Manifest.Cut).
type Omitted struct {
	Count int `json:"count"`
	// Items names the first MaxOmittedItems: a skipped line as its API
	// name when it could be read and its file and line ("numpy.foo
	// (bundles.jsonl:17)", "bundles.jsonl:18"); a cut as the API, the
	// component and its size before and after ("numpy.foo: C 41000000 →
	// 16000 characters").
	Items []string `json:"items,omitempty"`
}

// merge returns the union of two records of skipped input (nil when both
// are empty).
func (s *Omitted) merge(o *Omitted) *Omitted {
	if s == nil || s.Count == 0 {
		return o.clone()
	}
	out := s.clone()
	if o != nil {
		out.Count += o.Count
		out.Items = append(out.Items, o.Items...)
	}
	out.Items = out.Items[:min(len(out.Items), MaxOmittedItems)]
	return out
}

func (s *Omitted) clone() *Omitted {
	if s == nil || s.Count == 0 {
		return nil
	}
	return &Omitted{Count: s.Count, Items: slices.Clone(s.Items[:min(len(s.Items), MaxOmittedItems)])}
}

// Stats describes an open index.
type Stats struct {
	Dir           string `json:"dir"`
	Manifest             // counts as built
	VectorEnabled bool   `json:"vector_enabled"`
	// QueryEmbedder is the embedder used at query time ("" when off).
	QueryEmbedder string `json:"query_embedder"`
	// LSA describes the fitted LSA model in use, nil with another embedder.
	LSA     *LSAFit  `json:"lsa,omitempty"`
	Notices []string `json:"notices,omitempty"`
}

// LSAFit is what an index's LSA model was fitted on.
type LSAFit struct {
	Units int `json:"units"` // units fitted on (at most LSAConfig.Sample)
	Terms int `json:"terms"` // terms of the model; words outside them get hashed features only
	K     int `json:"k"`     // latent dimensions
	// Fitted is how many of the K dimensions the SVD fitted: at most the
	// units and terms fitted on; the others are always zero.
	Fitted int `json:"fitted_dims"`
}

// OpenOptions configures [Open]. The zero value uses the built-in embedder
// the index was built with.
type OpenOptions struct {
	// Embedder embeds queries. nil means the built-in embedder recorded in
	// the manifest (for LSA, the model fitted at build time); if the index
	// was built with a remote embedder and nil is given, vector search is
	// off (with a notice). An unfitted [LSAEmbedder] means the index's
	// fitted model when the settings match. An embedder whose ID or
	// dimension differs from the manifest's also turns it off.
	Embedder Embedder
	// Logger receives notices; nil means slog.Default().
	Logger *slog.Logger
}

// An Index is an open, read-only index generation. It is safe for
// concurrent use by multiple goroutines; a rebuild of its directory does
// not affect it (it keeps serving the generation it opened). Close it when
// done.
type Index struct {
	dir     string
	gen     string
	man     Manifest
	lex     *lexicalStore
	vec     *vectorStore // nil when the vector leg is off
	emb     Embedder
	notices []string
	log     *slog.Logger
	lock    *os.File

	all      []bundles.Bundle
	byKey    map[string]*bundles.Bundle
	byName   map[string][]string // API name → keys, highest version first
	alias    map[string]string   // lowercased name or alias → API name
	comps    map[string][]string // key → its components
	names    *nameTable
	libWords libraryWords    // words that name a library in a question (prior.go)
	public   map[string]bool // key → has a public import path (prior.go)
	terms    *apiTerms       // key → terms of its names, S, E and M (coverage.go)
	libs     []string
	versions map[string][]string // library → versions

	paperMu sync.Mutex
	paper   map[paperKey]*paperIndex

	closeOnce sync.Once
	closed    bool
}

// Open opens the live generation of the index in dir for reading. It fails
// with ErrNoIndex when dir holds no complete index and ErrCorrupt when its
// files are damaged; a missing or unusable vector store only turns the
// vector leg off (see [Index.Notices]).
func Open(dir string, opts OpenOptions) (*Index, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	gen, lock, err := openGeneration(dir)
	if err != nil {
		return nil, err
	}
	ix := &Index{dir: dir, gen: gen, lock: lock, log: log, paper: map[paperKey]*paperIndex{}}
	if err := ix.load(opts); err != nil {
		lock.Close()
		return nil, err
	}
	return ix, nil
}

func (ix *Index) load(opts OpenOptions) error {
	gdir := filepath.Join(ix.dir, ix.gen)
	man, err := readManifest(gdir)
	if err != nil {
		return err
	}
	ix.man = *man
	bs, _, err := bundles.ReadBundles(filepath.Join(gdir, bundlesFile), jsonl.ReadOptions{})
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	ix.setBundles(bs)
	ix.lex, err = openLexicalStore(gdir, false)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}

	emb, err := resolveEmbedder(opts.Embedder, gdir, man.Embedder.ID, man.Embedder.Dim)
	if err != nil {
		ix.notice(fmt.Sprintf("vector search off: embedder %s: %v", man.Embedder.ID, err))
		return nil
	}
	if emb == nil {
		ix.notice(fmt.Sprintf("vector search off: the index was built with embedder %s (dim %d); pass the same embedder to use it", man.Embedder.ID, man.Embedder.Dim))
		return nil
	}
	if emb.ID() != man.Embedder.ID {
		ix.notice(fmt.Sprintf("vector search off: query embedder %s differs from the index's %s (dim %d); lexical search only", emb.ID(), man.Embedder.ID, man.Embedder.Dim))
		return nil
	}
	if emb.Dim() == 0 { // remote: learn the dimension
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := emb.Embed(ctx, []string{"dimension probe"})
		cancel()
		if err != nil {
			ix.notice(fmt.Sprintf("vector search off: embedder %s unavailable: %v", emb.ID(), err))
			return nil
		}
	}
	if emb.Dim() != man.Embedder.Dim {
		ix.notice(fmt.Sprintf("vector search off: embedder %s gives %d-dimensional vectors, the index has %d", emb.ID(), emb.Dim(), man.Embedder.Dim))
		return nil
	}
	vs, err := loadVectorStore(filepath.Join(gdir, vectorsFile))
	if err == nil {
		units := map[string][]string{}
		for key, comps := range ix.comps {
			for _, c := range comps {
				units[c] = append(units[c], key+"#"+c)
			}
		}
		err = vs.flatten(context.Background(), units, man.Embedder.Dim)
	}
	if err != nil {
		ix.notice(fmt.Sprintf("vector search off: %v", err))
		return nil
	}
	ix.vec, ix.emb = vs, emb
	// The chromem copies of the vectors, dropped by flatten, are as large
	// as the flat ones; hand their pages back now rather than when the
	// scavenger gets to them, so that a server holding the index is not
	// twice its size (bench/index.sh reports the RSS).
	debug.FreeOSMemory()
	return nil
}

func (ix *Index) notice(msg string) {
	ix.notices = append(ix.notices, msg)
	ix.log.Warn(msg, "index", ix.dir)
}

// setBundles builds the lookup tables over bs.
func (ix *Index) setBundles(bs []bundles.Bundle) {
	ix.all = bs
	ix.byKey = make(map[string]*bundles.Bundle, len(bs))
	ix.byName = map[string][]string{}
	ix.alias = map[string]string{}
	ix.comps = map[string][]string{}
	ix.names = newNameTable()
	ix.names.learnAliases(bs)
	ix.public = map[string]bool{}
	ix.terms = newAPITerms()
	ix.terms.build(bs)
	ix.versions = map[string][]string{}
	libs := map[string]bool{}
	for i := range bs {
		b := &bs[i]
		v := bundleVersion(b)
		key := bundleKey(b)
		ix.byKey[key] = b
		ix.byName[b.APIName] = appendUnique(ix.byName[b.APIName], key)
		for _, n := range b.Names() {
			ln := strings.ToLower(n)
			if _, ok := ix.alias[ln]; !ok || n == b.APIName {
				ix.alias[ln] = b.APIName
			}
		}
		for _, u := range unitsOf(b) {
			ix.comps[key] = append(ix.comps[key], u.Component)
		}
		ix.names.addNames(key, b.Names())
		if p := b.Provenance; p != nil {
			// A deprecated old name ("numpy.trapz", "trapz(") names its
			// replacement, and an instance's name ("scipy.stats.triang")
			// its class (triang_gen).
			if len(p.Replaces) > 0 {
				ix.names.add(key, p.Replaces)
			}
			if len(p.Instances) > 0 {
				ix.names.addInstances(key, p.Instances, p.Kind == bundles.KindMethod)
			}
		}
		if d := definingName(b); d != "" {
			ix.names.addFull(key, d)
		}
		ix.public[key] = publicAPI(b)
		libs[b.Library] = true
		ix.versions[b.Library] = appendUnique(ix.versions[b.Library], v)
	}
	for name, keys := range ix.byName {
		slices.SortFunc(keys, func(a, b string) int {
			if c := pyversion.CompareStrings(bundleVersion(ix.byKey[b]), bundleVersion(ix.byKey[a])); c != 0 {
				return c
			}
			return strings.Compare(a, b) // a Debian bundle before a private one of the same version
		})
		ix.byName[name] = keys
	}
	ix.libs = slices.Sorted(maps.Keys(libs))
	ix.libWords = newLibraryWords(bs, ix.names.aliases)
	for _, vs := range ix.versions {
		slices.SortFunc(vs, pyversion.CompareStrings)
	}
}

// Close releases the index. It is idempotent; Search after Close fails
// with ErrClosed.
func (ix *Index) Close() error {
	var err error
	ix.closeOnce.Do(func() {
		ix.paperMu.Lock()
		ix.closed = true
		ix.paperMu.Unlock()
		if ix.lex != nil {
			err = ix.lex.Close()
		}
		if cerr := ix.lock.Close(); cerr != nil && err == nil {
			err = cerr
		}
	})
	return err
}

// Manifest returns the manifest of the open generation.
func (ix *Index) Manifest() Manifest { return ix.man }

// Notices returns the warnings raised at Open (vector search off, ...).
func (ix *Index) Notices() []string { return slices.Clone(ix.notices) }

// VectorEnabled reports whether the vector leg is on.
func (ix *Index) VectorEnabled() bool { return ix.vec != nil }

// Stats reports what the open index holds: the manifest counts, whether the
// vector leg is on and the notices.
func (ix *Index) Stats() Stats {
	s := Stats{Dir: ix.dir, Manifest: ix.man, VectorEnabled: ix.vec != nil, Notices: ix.Notices()}
	if ix.emb != nil && ix.vec != nil {
		s.QueryEmbedder = ix.emb.ID()
		if l, ok := ix.emb.(*LSAEmbedder); ok && l.model != nil {
			s.LSA = &LSAFit{Units: l.model.Units, Terms: len(l.model.Terms), K: l.model.K, Fitted: len(l.model.Sigma)}
		}
	}
	return s
}

// Names returns every qualified API name in the index, sorted, without
// aliases (for near-miss suggestions).
func (ix *Index) Names() []string {
	return slices.Sorted(maps.Keys(ix.byName))
}

// Libraries returns the libraries in the index, sorted.
func (ix *Index) Libraries() []string { return slices.Clone(ix.libs) }

// Versions returns the versions of library in the index, oldest first.
func (ix *Index) Versions(library string) []string { return slices.Clone(ix.versions[library]) }

// Bundles returns every indexed bundle, in index order. The slice and the
// bundles must not be modified.
func (ix *Index) Bundles() []bundles.Bundle { return ix.all }

// Bundle returns the bundle of apiName at its highest indexed version.
// apiName may be the qualified name, an alias recorded in
// Provenance.Aliases (another import path of the same object), or either
// written in another letter case.
func (ix *Index) Bundle(apiName string) (*bundles.Bundle, bool) {
	return ix.BundleAt(apiName, "")
}

// BundleAt is [Index.Bundle] at an exact version; "" means the highest.
func (ix *Index) BundleAt(apiName, version string) (*bundles.Bundle, bool) {
	return ix.BundleFrom(apiName, version, "")
}

// BundleFrom is [Index.BundleAt] from one source: a kind ("debian",
// "private") or a whole label ([SourceOf]); "" means any, a Debian bundle
// before a private one of the same version.
func (ix *Index) BundleFrom(apiName, version, source string) (*bundles.Bundle, bool) {
	keys, ok := ix.byName[apiName]
	if !ok {
		name, found := ix.alias[strings.ToLower(apiName)]
		if !found {
			return nil, false
		}
		keys = ix.byName[name]
	}
	for _, k := range keys {
		b := ix.byKey[k]
		if (version == "" || bundleVersion(b) == version) && SourceMatches(SourceOf(b), source) {
			return b, true
		}
	}
	return nil, false
}

// filter is a validated query's exact filters.
type filter struct {
	Library    string
	Version    string
	Components []string
}

func (f filter) allows(u *bundles.Bundle) bool {
	return (f.Library == "" || u.Library == f.Library) && (f.Version == "" || bundleVersion(u) == f.Version)
}

// normalizeComponent maps user spellings to S, E, M or C.
func normalizeComponent(c string) (string, bool) {
	switch strings.ToUpper(strings.TrimSpace(c)) {
	case "S", "S_NAME", "S_PARAM", "SIGNATURE":
		return CompS, true
	case "E", "EXAMPLE", "EXAMPLES":
		return CompE, true
	case "M", "MECHANISM":
		return CompM, true
	case "C", "IMPLEMENTATION", "SOURCE", "CODE":
		return CompC, true
	}
	return "", false
}

// versionMatches returns the versions of valid that v names: v itself
// when valid has it, else each version that is v without its local label
// (PEP 440: "2.2.3" for Debian's "2.2.3+dfsg") or has v as a release
// prefix ending at a dot ("2.2" for "2.2.3+dfsg").
func versionMatches(valid []string, v string) []string {
	if slices.Contains(valid, v) {
		return []string{v}
	}
	var matches []string
	for _, c := range valid {
		public, _, _ := strings.Cut(c, "+")
		if public == v || strings.HasPrefix(public, v+".") {
			matches = append(matches, c)
		}
	}
	return matches
}

// validate checks q and returns its normalized form and filter.
func (ix *Index) validate(q Query) (Query, filter, error) {
	q.Text = strings.TrimSpace(q.Text)
	if q.Text == "" {
		return q, filter{}, ErrEmptyQuery
	}
	if len(q.Text) > MaxQueryBytes {
		return q, filter{}, fmt.Errorf("%w: %d bytes (max %d)", ErrQueryTooLong, len(q.Text), MaxQueryBytes)
	}
	if q.K <= 0 {
		q.K = DefaultK
	}
	q.K = min(q.K, MaxK)
	if q.Retriever == "" {
		q.Retriever = Hybrid
	}
	if !slices.Contains(Retrievers, q.Retriever) {
		valid := make([]string, len(Retrievers))
		for i, r := range Retrievers {
			valid[i] = string(r)
		}
		return q, filter{}, &ArgError{Arg: "retriever", Value: string(q.Retriever), Valid: valid}
	}
	f := filter{Library: q.Library, Version: q.Version}
	if f.Library != "" && !slices.Contains(ix.libs, f.Library) {
		found := false
		for _, l := range ix.libs {
			if strings.EqualFold(l, f.Library) {
				f.Library, found = l, true
			}
		}
		if !found {
			return q, filter{}, &ArgError{Arg: "library", Value: q.Library, Valid: ix.Libraries()}
		}
	}
	if f.Version != "" {
		var valid []string
		if f.Library != "" {
			valid = ix.versions[f.Library]
		} else {
			for _, l := range ix.libs {
				for _, v := range ix.versions[l] {
					valid = appendUnique(valid, v)
				}
			}
		}
		matches := versionMatches(valid, f.Version)
		if len(matches) != 1 {
			return q, filter{}, &ArgError{Arg: "version", Value: q.Version, Valid: valid, Matches: matches}
		}
		f.Version = matches[0]
	}
	for _, c := range q.Components {
		nc, ok := normalizeComponent(c)
		if !ok {
			return q, filter{}, &ArgError{Arg: "component", Value: c, Valid: AllComponents}
		}
		f.Components = appendUnique(f.Components, nc)
	}
	slices.SortFunc(f.Components, func(a, b string) int { return slices.Index(AllComponents, a) - slices.Index(AllComponents, b) })
	if q.Retriever == Paper {
		if q.Condition == "" {
			q.Condition = bundles.CondFull
		}
		if !q.Condition.Valid() || q.Condition == bundles.CondNone {
			var valid []string
			for _, c := range bundles.AllConditions() {
				if c != bundles.CondNone {
					valid = append(valid, string(c))
				}
			}
			return q, filter{}, &ArgError{Arg: "condition", Value: string(q.Condition), Valid: valid}
		}
	}
	if q.Retriever == Vector && ix.vec == nil {
		reasons := make([]string, len(ix.notices))
		for i, n := range ix.notices {
			reasons[i] = strings.TrimPrefix(n, "vector search off: ")
		}
		return q, filter{}, fmt.Errorf("%w: %s", ErrVectorDisabled, strings.Join(reasons, "; "))
	}
	return q, f, nil
}

// legDepth is how many units each leg returns before fusion, whatever
// Query.K: K only truncates one ranking, so a longer list (the MCP server
// asks for 3×k, a user for --k 20) never reorders its first hits, and the
// retrieval evaluation (K = MaxK) measures the order a K = 5 caller gets.
// Deeper legs cost query time without changing hit@5 (docs/changelog.md).
// A K above what the legs found returns fewer than K hits.
const legDepth = 50

// Search returns up to q.K APIs matching q, best first, one Hit per API and
// version. Invalid arguments fail with ErrEmptyQuery, ErrQueryTooLong or an
// *ArgError listing the valid values; Vector fails with ErrVectorDisabled
// when the vector leg is off, while Hybrid then silently uses BM25 alone
// (the reason is in [Index.Notices]). An API named exactly in the query
// (see [Hit.Exact]) ranks first under Hybrid and BM25.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if ix.closed {
		return nil, ErrClosed
	}
	q, f, err := ix.validate(q)
	if err != nil {
		return nil, err
	}
	if q.Retriever == Paper {
		return ix.searchPaper(ctx, q, f)
	}
	c, err := ix.candidates(ctx, q, f)
	if err != nil {
		return nil, err
	}
	fs := c.fs
	if q.Retriever != Vector { // the vector retriever reports the raw leg
		ix.rerank(fs, c, q.Text)
	}
	vectorSim := c.vectorSim
	hits := make([]Hit, 0, min(q.K, len(fs)))
	for _, fu := range fs {
		if len(hits) == q.K {
			break
		}
		b := ix.byKey[fu.key]
		if b == nil {
			continue
		}
		comps := sortedComps(fu.comps)
		if len(comps) == 0 {
			comps = ix.componentsOf(fu.key, f.Components)
		}
		score := fu.score - fu.bonus
		if vectorSim != nil {
			score = float64(vectorSim[fu.key])
		}
		hits = append(hits, Hit{
			APIName: b.APIName, Library: b.Library, Version: bundleVersion(b), Novelty: novelty(b), Source: SourceOf(b),
			Score: score, Rank: len(hits) + 1, Components: comps, Exact: fu.exact(), Instances: b.PublicInstances(),
		})
	}
	return hits, nil
}

// candidates are the fused APIs of one query before re-ranking, and what
// the legs found for each (ranker.go's features).
type candidates struct {
	fs       []fused
	qterms   []queryTerm           // the query analysed once, for the lexical leg and coverage
	lexScore map[string]float64    // API key → BM25 score of its best unit
	compSim  map[string][3]float64 // API key → best cosine of its S, E and M units
	compLex  map[string][3]float64 // API key → best BM25 of its S, E and M units
	// vectorSim holds the vector retriever's scores (nil for the others).
	vectorSim map[string]float32
	// objectTypes are the keys of the classes the question names as the
	// type of an object it holds (nameTable.objectTypes).
	objectTypes []string
}

// candidates runs the legs of q's retriever (not Paper) and fuses them.
func (ix *Index) candidates(ctx context.Context, q Query, f filter) (*candidates, error) {
	n := legDepth
	text := expandQuery(q.Text)
	// The legs are independent: under Hybrid the vector leg runs on its own
	// goroutine while the lexical one runs here.
	type legResult struct {
		ids  []string
		sims []float32          // of ids
		sim  map[string]float32 // API key → best cosine of its units
		err  error
	}
	c := &candidates{}
	var vecc chan legResult
	if (q.Retriever == Hybrid || q.Retriever == Vector) && ix.vec != nil {
		vecc = make(chan legResult, 1)
		vectorLeg := func() {
			qv, err := ix.emb.Embed(ctx, []string{text})
			if err != nil {
				vecc <- legResult{err: fmt.Errorf("embed query: %w", err)}
				return
			}
			if allZero(qv[0]) {
				// No feature of the query is known (only stop words,
				// punctuation): every cosine is 0, and the order would
				// be noise.
				vecc <- legResult{}
				return
			}
			vh := ix.vec.searchFlat(qv[0], f, n)
			ids := make([]string, len(vh))
			sims := make([]float32, len(vh))
			sim := make(map[string]float32, len(vh))
			for i, h := range vh {
				ids[i], sims[i] = h.ID, h.Similarity
				if key, _ := unitKey(h.ID); h.Similarity > sim[key] {
					sim[key] = h.Similarity
				}
			}
			vecc <- legResult{ids: ids, sims: sims, sim: sim}
		}
		if q.Retriever == Hybrid {
			go vectorLeg()
		} else {
			vectorLeg()
		}
	}
	var (
		rankings   []apiRanking
		weights    []float64
		lexicalHit bool
		qterms     []queryTerm // the query analysed once, for the lexical leg and coverage
	)
	if q.Retriever != Vector {
		qterms = ix.lex.terms(text)
	}
	if q.Retriever == Hybrid || q.Retriever == BM25 {
		lh, err := ix.lex.search(ctx, qterms, f, n)
		if err != nil {
			if vecc != nil {
				<-vecc
			}
			return nil, err
		}
		ids := make([]string, len(lh))
		for i, h := range lh {
			ids[i] = h.ID
		}
		r := rankAPIs(ids)
		rankings = append(rankings, r)
		weights = append(weights, lexicalWeight)
		lexicalHit = len(lh) > 0
		c.lexScore = make(map[string]float64, len(r.keys))
		c.compLex = make(map[string][3]float64, len(r.keys))
		for _, h := range lh {
			key, comp := unitKey(h.ID)
			if c.lexScore[key] == 0 {
				c.lexScore[key] = h.Score
			}
			if j := compIndex(comp); j >= 0 {
				v := c.compLex[key]
				v[j] = max(v[j], h.Score)
				c.compLex[key] = v
			}
		}
	}
	if vecc != nil {
		r := <-vecc
		switch {
		case r.err != nil && q.Retriever == Vector:
			return nil, r.err
		case r.err != nil:
			ix.log.Warn("vector leg skipped", "err", r.err)
		case q.Retriever == Hybrid && !lexicalHit:
			// No word of the query is in any unit (another language, a
			// made-up name): the vector leg alone would rank the nearest
			// character n-grams, which is noise; hybrid answers nothing
			// and callers offer the nearest names (mcpserver's no-match
			// answer). The vector retriever still ranks them.
		default:
			rankings = append(rankings, rankAPIs(r.ids))
			weights = append(weights, vectorWeight)
			c.compSim = map[string][3]float64{}
			for i, id := range r.ids {
				key, comp := unitKey(id)
				if j := compIndex(comp); j >= 0 {
					v := c.compSim[key]
					v[j] = max(v[j], float64(r.sims[i]))
					c.compSim[key] = v
				}
			}
			if q.Retriever == Vector {
				c.vectorSim = r.sim
			}
		}
	}
	var exact []string
	if q.Retriever != Vector {
		for _, key := range ix.names.lookup(questionLine(q.Text)) {
			if b := ix.byKey[key]; b != nil && f.allows(b) && ix.hasComponent(key, f.Components) {
				exact = append(exact, key)
			}
		}
	}
	c.fs = fuse(rankings, weights, exact)
	c.qterms = qterms
	c.objectTypes = ix.names.objectTypes(questionLine(q.Text))
	return c, nil
}

// allZero reports whether v has no non-zero coordinate.
func allZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// questionLine returns the first line of a query: the question. Further
// lines are context (the protocol's task queries append the context code,
// §6), whose identifiers name APIs the code uses, not the one asked for,
// so they do not trigger the exact-name rule; both legs still see them.
// A pasted Python traceback is the exception: its last line, the error
// ("AttributeError: ... Use `np.trapezoid` instead"), is the question.
func questionLine(text string) string {
	line, rest, _ := strings.Cut(text, "\n")
	if strings.HasPrefix(strings.TrimSpace(line), "Traceback (most recent call last)") {
		rest = strings.TrimRight(rest, " \t\r\n")
		return rest[strings.LastIndexByte(rest, '\n')+1:]
	}
	return line
}

// hasComponent reports whether the API at key has one of comps (any when
// comps is empty).
func (ix *Index) hasComponent(key string, comps []string) bool {
	return len(ix.componentsOf(key, comps)) > 0
}

func (ix *Index) componentsOf(key string, comps []string) []string {
	var out []string
	for _, c := range ix.comps[key] {
		if len(comps) == 0 || slices.Contains(comps, c) {
			out = append(out, c)
		}
	}
	return out
}

func sortedComps(m map[string]bool) []string {
	var out []string
	for _, c := range AllComponents {
		if m[c] {
			out = append(out, c)
		}
	}
	return out
}
