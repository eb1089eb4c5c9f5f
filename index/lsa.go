package index

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Defaults of [LSAConfig], chosen on the retrieval figures of
// docs/retrieval.md ("LSA embedder").
const (
	DefaultLSAK          = 192   // latent dimensions
	DefaultLSASample     = 8000  // units fitted at most
	DefaultLSAVocab      = 30000 // terms kept at most
	DefaultLSAHashWeight = 0.5   // share of the cosine from hashed features
)

const (
	lsaFile       = "lsa.gob" // the fitted model, in the generation directory
	lsaFormat     = 1
	lsaOversample = 16 // extra columns of the randomized range finder
	lsaPowerIters = 2  // power iterations of the range finder
	lsaMinDF      = 2  // a term must occur in this many fitted units
)

// LSAConfig configures an [LSAEmbedder]. A zero field selects the default.
type LSAConfig struct {
	// K is the number of latent dimensions; 0 means DefaultLSAK.
	K int
	// Sample bounds the units the model is fitted on (a fixed pseudo-random
	// subset of them, chosen by unit ID); the others are folded in. 0 means
	// DefaultLSASample.
	Sample int
	// Vocab bounds the terms of the model (the most frequent are kept); 0
	// means DefaultLSAVocab.
	Vocab int
	// HashWeight is the share, in (0, 1), of the cosine given to the
	// hashing embedder's features, concatenated to the latent ones: a
	// vector is [√(1−w)·lsa, √w·hash], so the cosine of two vectors is
	// (1−w)·cos_lsa + w·cos_hash. 0 means DefaultLSAHashWeight; negative
	// means latent features only. Hashed features keep exact words and
	// identifiers, which the latent ones blur, and words the model was not
	// fitted on (an index add).
	HashWeight float64
	// HashDim is the dimension of the hashed half; 0 means DefaultHashDim.
	// Unused with latent features only.
	HashDim int
	// InvSigma folds texts in as Σ⁻¹Vᵀx (documents then get their
	// coordinates in the left singular vectors) instead of Vᵀx.
	InvSigma bool
	// Components are the components fitted on; nil means S and M, those
	// the vector leg scores by default. Every unit is embedded, whatever
	// its component.
	Components []string
	// MinDF is the number of fitted units a term must occur in to be kept;
	// 0 means 2.
	MinDF int
	// PowerIters is the number of power iterations of the randomized SVD;
	// 0 means 2, negative means none.
	PowerIters int
}

func (c LSAConfig) withDefaults() LSAConfig {
	if c.K <= 0 {
		c.K = DefaultLSAK
	}
	if c.Sample <= 0 {
		c.Sample = DefaultLSASample
	}
	if c.Vocab <= 0 {
		c.Vocab = DefaultLSAVocab
	}
	if c.MinDF <= 0 {
		c.MinDF = lsaMinDF
	}
	switch {
	case c.PowerIters == 0:
		c.PowerIters = lsaPowerIters
	case c.PowerIters < 0:
		c.PowerIters = 0
	}
	switch {
	case c.HashWeight == 0:
		c.HashWeight = DefaultLSAHashWeight
	case c.HashWeight < 0:
		c.HashWeight = 0
	}
	c.HashWeight = min(c.HashWeight, 0.99)
	if c.Components == nil {
		c.Components = vectorDefaultComponents
	}
	if c.HashWeight == 0 {
		c.HashDim = 0
	} else if c.HashDim <= 0 {
		c.HashDim = DefaultHashDim
	}
	return c
}

// settingsID is the part of the embedder ID fixed by the settings that
// change query vectors: "lsa-v1-k192", plus "-inv" with InvSigma and
// "-h50" for a hash weight of 0.50 (with "d256" appended for a hash
// dimension other than the default).
func (c LSAConfig) settingsID() string {
	id := fmt.Sprintf("lsa-v1-k%d", c.K)
	if c.InvSigma {
		id += "-inv"
	}
	if c.HashWeight > 0 {
		id += fmt.Sprintf("-h%02d", int(math.Round(c.HashWeight*100)))
		if c.HashDim != DefaultHashDim {
			id += fmt.Sprintf("d%d", c.HashDim)
		}
	}
	return id
}

// LSAEmbedder is the built-in latent semantic analysis embedder: it needs
// no network and no model weights, but is fitted on the indexed corpus
// when an index is built. Texts are analysed like the lexical leg, weighted
// by TF-IDF (1+ln tf, smoothed idf, L2-normalised) and projected on the
// top K right singular vectors of the fitted units' TF-IDF matrix,
// computed by randomized SVD (Halko, Martinsson & Tropp 2011); the result
// is L2-normalised. Terms that co-occur in the corpus get nearby vectors,
// so a query can match a document that shares none of its words.
//
// [NewLSAEmbedder] returns an unfitted embedder: its ID is the settings
// part ("lsa-v1-k192-h50"), and Embed fails. [Build] fits it on the units
// it indexes and records the fitted model in the index; the fitted ID adds
// a digest of the model ("lsa-v1-k192-h50-1a2b3c4d"). [Open] and [Add] load the
// recorded model when given an unfitted LSAEmbedder with the same settings
// (or nil). A fitted LSAEmbedder is safe for concurrent use.
type LSAEmbedder struct {
	cfg   LSAConfig
	model *lsaModel // nil until fitted
	// encoded is the gob encoding of model made for its digest at fit
	// time, kept until save writes it (encoding it is a tenth of a build).
	encoded []byte
	id      string
	terms   map[string]int32
	pool    sync.Pool // analysis.Analyzer
}

var _ Embedder = (*LSAEmbedder)(nil)

// NewLSAEmbedder returns an unfitted LSA embedder with the settings of cfg.
func NewLSAEmbedder(cfg LSAConfig) *LSAEmbedder {
	return newLSA(cfg.withDefaults())
}

// newLSA returns an unfitted embedder with cfg, whose defaults are set.
func newLSA(cfg LSAConfig) *LSAEmbedder {
	e := &LSAEmbedder{cfg: cfg}
	e.id = e.cfg.settingsID()
	e.pool.New = func() any { return newIdentAnalyzer() }
	return e
}

// lsaModel is the fitted model as persisted (gob).
type lsaModel struct {
	Format     int
	K          int
	InvSigma   bool
	HashWeight float64
	HashDim    int
	Terms      []string
	IDF        []float32
	Proj       []float32 // len(Terms) × K, row-major: each term's latent vector
	Sigma      []float64 // the K singular values (for inspection)
	Units      int       // units fitted on
	// ProjLE holds Proj as little-endian float32 bytes in the file, Proj
	// being left empty there: gob decodes a byte slice at memory speed but
	// a float slice number by number (docs/changelog.md). Files without
	// ProjLE have Proj itself.
	ProjLE []byte
}

// ID returns the settings part ("lsa-v1-k192-h50") when unfitted, and the
// settings and model digest ("lsa-v1-k192-h50-1a2b3c4d") when fitted.
func (e *LSAEmbedder) ID() string { return e.id }

// Dim returns K, plus the hash dimension unless the features are latent
// only.
func (e *LSAEmbedder) Dim() int { return e.cfg.K + e.cfg.HashDim }

// Fitted reports whether e holds a fitted model.
func (e *LSAEmbedder) Fitted() bool { return e.model != nil }

// Embed embeds each text. It fails when e is not fitted or ctx is
// cancelled.
func (e *LSAEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.model == nil {
		return nil, fmt.Errorf("index: embedder %s is not fitted (it is fitted by index build)", e.id)
	}
	out := make([][]float32, len(texts))
	// Batches (an index build) are embedded on all cores.
	workers := min(max(1, runtime.GOMAXPROCS(0)), max(1, len(texts)/32))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			a := e.pool.Get().(analysis.Analyzer)
			defer e.pool.Put(a)
			for n, i := 0, w; i < len(texts); n, i = n+1, i+workers {
				if n%64 == 0 && ctx.Err() != nil {
					return
				}
				out[i] = e.embedTokens(a.Analyze([]byte(texts[i])))
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return out, nil
}

func (e *LSAEmbedder) embedTokens(toks analysis.TokenStream) []float32 {
	m := e.model
	var ids []int32
	for _, tok := range toks {
		if j, ok := e.terms[string(tok.Term)]; ok {
			ids = append(ids, j)
		}
	}
	slices.Sort(ids) // runs of one term; a fixed order of the sums
	// The TF-IDF vector is not normalised: the projection is linear and
	// its result is.
	out := make([]float32, e.Dim())
	lat := blas32.Vector{N: m.K, Inc: 1, Data: out[:m.K]}
	for i := 0; i < len(ids); {
		j, c := ids[i], 0
		for ; i < len(ids) && ids[i] == j; i++ {
			c++
		}
		w := (1 + math.Log(float64(c))) * float64(m.IDF[j])
		blas32.Axpy(float32(w), blas32.Vector{N: m.K, Inc: 1, Data: m.Proj[int(j)*m.K : (int(j)+1)*m.K]}, lat)
	}
	if s := blas32.Nrm2(lat); s > 0 {
		blas32.Scal(float32(math.Sqrt(1-m.HashWeight)/float64(s)), lat)
	}
	if m.HashWeight > 0 {
		h := hashTokens(toks, m.HashDim)
		f := float32(math.Sqrt(m.HashWeight))
		for d, x := range h {
			out[m.K+d] = x * f
		}
	}
	return out
}

// fit fits an embedder with e's settings on units (those of the
// configured components, at most Sample of them) and returns it.
func (e *LSAEmbedder) fit(ctx context.Context, units []unit) (*LSAEmbedder, error) {
	cfg := e.cfg
	var pick []*unit
	for i := range units {
		if slices.Contains(cfg.Components, units[i].Component) {
			pick = append(pick, &units[i])
		}
	}
	if len(pick) > cfg.Sample {
		// A fixed pseudo-random subset that does not depend on input order.
		slices.SortFunc(pick, func(a, b *unit) int {
			return cmp.Or(cmp.Compare(fnvFeature('u', []byte(a.ID)), fnvFeature('u', []byte(b.ID))), strings.Compare(a.ID, b.ID))
		})
		pick = pick[:cfg.Sample]
	}
	slices.SortFunc(pick, func(a, b *unit) int { return strings.Compare(a.ID, b.ID) })

	// Term counts per unit, analysed on all cores.
	docs := make([]map[string]int, len(pick))
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			a := e.pool.Get().(analysis.Analyzer)
			defer e.pool.Put(a)
			for i := w; i < len(pick); i += workers {
				if ctx.Err() != nil {
					return
				}
				c := map[string]int{}
				for _, tok := range a.Analyze([]byte(pick[i].embedText())) {
					c[string(tok.Term)]++
				}
				docs[i] = c
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}

	df := map[string]int{}
	for _, d := range docs {
		for t := range d {
			df[t]++
		}
	}
	var terms []string
	for t, n := range df {
		if n >= cfg.MinDF {
			terms = append(terms, t)
		}
	}
	slices.SortFunc(terms, func(a, b string) int { return cmp.Or(cmp.Compare(df[b], df[a]), strings.Compare(a, b)) })
	terms = terms[:min(len(terms), cfg.Vocab)]
	index := make(map[string]int32, len(terms))
	idf := make([]float32, len(terms))
	n := float64(len(docs))
	for j, t := range terms {
		index[t] = int32(j)
		idf[j] = float32(math.Log((1+n)/(1+float64(df[t]))) + 1)
	}

	// TF-IDF rows, L2-normalised (documents × terms).
	a := &csr{cols: len(terms), ptr: []int{0}}
	type entry struct {
		j int32
		c int
	}
	var row []entry
	for _, d := range docs {
		row = row[:0]
		for t, c := range d {
			if j, ok := index[t]; ok {
				row = append(row, entry{j, c})
			}
		}
		if len(row) == 0 {
			continue
		}
		slices.SortFunc(row, func(x, y entry) int { return cmp.Compare(x.j, y.j) }) // deterministic sums
		start := len(a.idx)
		var norm float64
		for _, e := range row {
			w := (1 + math.Log(float64(e.c))) * float64(idf[e.j])
			a.idx = append(a.idx, e.j)
			a.val = append(a.val, w)
			norm += w * w
		}
		floats.Scale(1/math.Sqrt(norm), a.val[start:])
		a.ptr = append(a.ptr, len(a.idx))
	}
	a.rows = len(a.ptr) - 1

	m := &lsaModel{
		Format: lsaFormat, K: cfg.K, InvSigma: cfg.InvSigma, HashWeight: cfg.HashWeight, HashDim: cfg.HashDim,
		Terms: terms, IDF: idf, Proj: make([]float32, len(terms)*cfg.K), Units: a.rows,
	}
	if a.rows > 0 && a.cols > 0 {
		rng := rand.New(rand.NewPCG(0x6e6f76656c617069, uint64(cfg.K))) // fixed: same corpus, same model
		v, sigma, err := randomizedSVD(ctx, a, cfg.K, lsaOversample, cfg.PowerIters, rng)
		if err != nil {
			return nil, err
		}
		_, k := v.Dims()
		for j := range terms {
			for d := range k {
				p := v.At(j, d)
				if cfg.InvSigma && sigma[d] > 0 {
					p /= sigma[d]
				}
				m.Proj[j*cfg.K+d] = float32(p)
			}
		}
		m.Sigma = sigma
	}
	return newFittedLSA(cfg, m)
}

// newFittedLSA returns the embedder holding m, with its digest in the ID;
// cfg has its defaults set.
func newFittedLSA(cfg LSAConfig, m *lsaModel) (*LSAEmbedder, error) {
	b, err := encodeLSA(m)
	if err != nil {
		return nil, err
	}
	e := lsaFromBytes(cfg, m, b)
	e.encoded = b
	return e, nil
}

func lsaFromBytes(cfg LSAConfig, m *lsaModel, b []byte) *LSAEmbedder {
	sum := sha256.Sum256(b)
	e := newLSA(cfg)
	e.model = m
	e.id = e.cfg.settingsID() + "-" + hex.EncodeToString(sum[:4])
	e.terms = make(map[string]int32, len(m.Terms))
	for j, t := range m.Terms {
		e.terms[t] = int32(j)
	}
	return e
}

func encodeLSA(m *lsaModel) ([]byte, error) {
	var buf bytes.Buffer
	file := *m
	file.Proj = nil
	file.ProjLE = make([]byte, 4*len(m.Proj))
	for i, v := range m.Proj {
		binary.LittleEndian.PutUint32(file.ProjLE[4*i:], math.Float32bits(v))
	}
	if err := gob.NewEncoder(&buf).Encode(&file); err != nil {
		return nil, fmt.Errorf("encode LSA model: %w", err)
	}
	return buf.Bytes(), nil
}

// save writes the fitted model into the generation directory gdir.
func (e *LSAEmbedder) save(gdir string) error {
	if e.model == nil {
		return fmt.Errorf("index: embedder %s is not fitted", e.id)
	}
	b := e.encoded
	if b == nil {
		var err error
		if b, err = encodeLSA(e.model); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(gdir, lsaFile), b, 0o644); err != nil {
		return fmt.Errorf("save LSA model: %w", err)
	}
	e.encoded = nil
	return nil
}

// loadLSA reads the model recorded in the generation directory gdir.
func loadLSA(gdir string) (*LSAEmbedder, error) {
	path := filepath.Join(gdir, lsaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is missing", ErrCorrupt, path)
		}
		return nil, err
	}
	var m lsaModel
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if len(m.ProjLE) > 0 {
		if len(m.Proj) > 0 || len(m.ProjLE)%4 != 0 {
			return nil, fmt.Errorf("%w: %s: projection stored twice or cut (%d bytes)", ErrCorrupt, path, len(m.ProjLE))
		}
		m.Proj = make([]float32, len(m.ProjLE)/4)
		for i := range m.Proj {
			m.Proj[i] = math.Float32frombits(binary.LittleEndian.Uint32(m.ProjLE[4*i:]))
		}
		m.ProjLE = nil
	}
	if m.Format != lsaFormat || m.K <= 0 || len(m.IDF) != len(m.Terms) || len(m.Proj) != len(m.Terms)*m.K {
		return nil, fmt.Errorf("%w: %s: format %d, K %d, %d terms, %d weights", ErrCorrupt, path, m.Format, m.K, len(m.Terms), len(m.Proj))
	}
	cfg := LSAConfig{K: m.K, InvSigma: m.InvSigma, HashWeight: m.HashWeight, HashDim: m.HashDim}
	return lsaFromBytes(cfg, &m, b), nil
}

// resolveEmbedder returns the embedder to use with the generation in gdir,
// whose manifest records id: e itself, except that nil means the built-in
// embedder recorded (nil when id is not a built-in's), and an unfitted
// [LSAEmbedder] means the generation's fitted model when its settings are
// e's (e itself otherwise, whose ID then differs from id).
func resolveEmbedder(e Embedder, gdir, id string, dim int) (Embedder, error) {
	l, unfitted := e.(*LSAEmbedder)
	unfitted = unfitted && !l.Fitted()
	switch {
	case e == nil && embedderKind(id) == "lsa":
		return loadLSA(gdir)
	case e == nil:
		return builtinFromID(id, dim), nil
	case unfitted && fittedWith(id, l.ID()):
		return loadLSA(gdir)
	}
	return e, nil
}

// fittedWith reports whether id is the ID of an LSA embedder fitted with
// the settings whose ID is settings: settings + "-" + the model digest.
func fittedWith(id, settings string) bool {
	i := strings.LastIndexByte(id, '-')
	return i >= 0 && id[:i] == settings
}

// csr is a sparse row-major matrix.
type csr struct {
	rows, cols int
	ptr        []int // row i is idx/val[ptr[i]:ptr[i+1]]
	idx        []int32
	val        []float64
}

// transpose returns aᵀ.
func (a *csr) transpose() *csr {
	t := &csr{rows: a.cols, cols: a.rows, ptr: make([]int, a.cols+1), idx: make([]int32, len(a.idx)), val: make([]float64, len(a.val))}
	for _, j := range a.idx {
		t.ptr[j+1]++
	}
	for j := range a.cols {
		t.ptr[j+1] += t.ptr[j]
	}
	next := slices.Clone(t.ptr[:a.cols])
	for i := range a.rows {
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			j := a.idx[p]
			t.idx[next[j]] = int32(i)
			t.val[next[j]] = a.val[p]
			next[j]++
		}
	}
	return t
}

// mul returns a·d (d has a.cols rows), its rows computed on all cores.
func (a *csr) mul(d *mat.Dense) *mat.Dense {
	_, l := d.Dims()
	out := mat.NewDense(a.rows, l, nil)
	dr, or := d.RawMatrix(), out.RawMatrix()
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < a.rows; i += workers {
				row := or.Data[i*or.Stride : i*or.Stride+l]
				for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
					j := int(a.idx[p])
					floats.AddScaled(row, a.val[p], dr.Data[j*dr.Stride:j*dr.Stride+l])
				}
			}
		})
	}
	wg.Wait()
	return out
}

// orthonormalize replaces the columns of d (rows ≥ columns) by an
// orthonormal basis of their span (thin Householder QR).
func orthonormalize(d *mat.Dense) {
	raw := d.RawMatrix()
	tau := make([]float64, min(raw.Rows, raw.Cols))
	work := make([]float64, 1)
	lapack64.Geqrf(raw, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(raw, tau, work, len(work))
	work = make([]float64, 1)
	lapack64.Orgqr(raw, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Orgqr(raw, tau, work, len(work))
}

// randomizedSVD returns the top k right singular vectors of a (as the
// columns of an a.cols × k' matrix, k' = min(k, a.rows, a.cols)) and their
// singular values, by the randomized range finder with q power iterations
// and p oversampling columns (Halko, Martinsson & Tropp 2011, algorithms
// 4.3 and 5.1). The power iterations orthonormalize once per a·aᵀ step,
// on the row side (a fitted sample of units), never on the term side,
// which can be several times larger: an a·aᵀ step squares the ratio of
// the singular values, which float64 keeps for the ratios of TF-IDF
// matrices. The small matrix B = Qᵀa (l × cols) is decomposed through its
// l × l Gram matrix BBᵀ = WΣ²Wᵀ, whose SVD gives B's singular values and
// right singular vectors Bᵀ·W·Σ⁻¹ without a QR of the cols × l matrix Bᵀ.
func randomizedSVD(ctx context.Context, a *csr, k, p, q int, rng *rand.Rand) (*mat.Dense, []float64, error) {
	l := min(k+p, a.rows, a.cols)
	k = min(k, l)
	at := a.transpose()
	omega := mat.NewDense(a.cols, l, nil)
	raw := omega.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] = rng.NormFloat64()
	}
	y := a.mul(omega) // rows × l: samples the range of a
	orthonormalize(y)
	for range q {
		if ctx.Err() != nil {
			return nil, nil, context.Cause(ctx)
		}
		y = a.mul(at.mul(y))
		orthonormalize(y)
	}
	bt := at.mul(y) // cols × l: Bᵀ = aᵀQ
	var g mat.Dense
	g.Mul(bt.T(), bt) // BBᵀ, l × l
	var svd mat.SVD
	if !svd.Factorize(&g, mat.SVDThinU) {
		return nil, nil, errors.New("index: LSA: SVD did not converge")
	}
	var w mat.Dense
	svd.UTo(&w)
	lambda := svd.Values(nil)
	sigma := make([]float64, k)
	for d := range k {
		sigma[d] = math.Sqrt(max(lambda[d], 0))
		col := w.ColView(d).(*mat.VecDense)
		if sigma[d] > 0 {
			col.ScaleVec(1/sigma[d], col)
		} else {
			col.Zero()
		}
	}
	v := mat.NewDense(a.cols, k, nil)
	v.Mul(bt, w.Slice(0, l, 0, k))
	return v, sigma, nil
}
