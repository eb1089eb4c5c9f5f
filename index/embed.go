package index

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	chromem "github.com/philippgille/chromem-go"
)

// An Embedder turns texts into vectors for the vector leg and the paper
// baseline.
//
// ID names the model and every setting that changes its vectors (for the
// built-in one "hash-v1-d384"); Dim is the vector length, 0 until known for
// remote embedders. Embed returns one L2-normalised vector of length Dim per
// text, in order, or an error when any text could not be embedded.
// Implementations must be safe for concurrent use. Two embedders with the
// same ID and Dim must produce comparable vectors: the index records both in
// its manifest and turns the vector leg off when they differ at query time.
type Embedder interface {
	ID() string
	Dim() int
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// DefaultHashDim is the vector length of the built-in hashing embedder.
const DefaultHashDim = 384

// HashEmbedder is the built-in embedder: it needs no network and no model
// weights. A text is analysed like the lexical leg (identifier-aware
// tokens, whole identifiers kept, stop words dropped, parts stemmed); each
// token (weight 1) and each character 3-gram of the non-identifier tokens
// (weight 0.5, with "<" ">" word boundaries) is hashed with FNV-64a into Dim
// signed buckets, counts are damped as 1+ln(tf) and the vector is
// L2-normalised (without corpus IDF, so that it is
// stateless and incremental adds need no refit).
//
// The zero value is not usable; use [NewHashEmbedder].
type HashEmbedder struct {
	dim  int
	pool sync.Pool // analysis.Analyzer (not documented as goroutine-safe)
}

var _ Embedder = (*HashEmbedder)(nil)

// NewHashEmbedder returns the built-in hashing embedder with dim buckets
// (0 means DefaultHashDim).
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = DefaultHashDim
	}
	h := &HashEmbedder{dim: dim}
	h.pool.New = func() any { return newIdentAnalyzer() }
	return h
}

// ID returns "hash-v1-d<dim>".
func (h *HashEmbedder) ID() string { return fmt.Sprintf("hash-v1-d%d", h.dim) }

// Dim returns the vector length.
func (h *HashEmbedder) Dim() int { return h.dim }

// Embed embeds each text; it never fails except on a cancelled context.
func (h *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	a := h.pool.Get().(analysis.Analyzer)
	defer h.pool.Put(a)
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		out[i] = h.embedOne(a, t)
	}
	return out, nil
}

func (h *HashEmbedder) embedOne(a analysis.Analyzer, text string) []float32 {
	return hashTokens(a.Analyze([]byte(text)), h.dim)
}

// hashTokens is the hashing embedder's vector of an analysed text.
func hashTokens(toks analysis.TokenStream, dim int) []float32 {
	counts := make(map[uint64]float64, 256)
	var buf [64]byte
	for _, tok := range toks {
		term := tok.Term
		counts[fnvFeature('w', term)]++
		if tok.KeyWord || len(term) < 3 || len(term) > len(buf)-2 {
			continue
		}
		g := append(append(append(buf[:0], '<'), term...), '>')
		for i := 0; i+3 <= len(g); i++ {
			counts[fnvFeature('g', g[i:i+3])] += 0.5
		}
	}
	v := make([]float32, dim)
	for x, c := range counts {
		w := 1 + math.Log(c)
		if c < 1 {
			w = c
		}
		if x>>63 == 1 {
			w = -w
		}
		v[x%uint64(dim)] += float32(w)
	}
	normalize(v)
	return v
}

// fnvFeature is FNV-64a of the kind byte followed by s.
func fnvFeature(kind byte, s []byte) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	h = (h ^ uint64(kind)) * prime
	for _, c := range s {
		h = (h ^ uint64(c)) * prime
	}
	return h
}

// normalize scales v to unit L2 norm in place (zero vectors stay zero).
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	n := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= n
	}
}

// FuncEmbedder adapts a chromem-go embedding function (one text per call)
// to [Embedder]; it is how the Ollama and OpenAI-compatible endpoints are
// reached. Dim is learned from the first vector. Vectors are L2-normalised
// here because chromem-go stores function outputs as they are.
type FuncEmbedder struct {
	id          string
	fn          chromem.EmbeddingFunc
	concurrency int
	mu          sync.Mutex
	dim         int
}

var _ Embedder = (*FuncEmbedder)(nil)

// NewOllamaEmbedder embeds with model through an Ollama server at baseURL
// ("" means http://localhost:11434/api). Its ID is "ollama:<model>".
func NewOllamaEmbedder(model, baseURL string) *FuncEmbedder {
	return &FuncEmbedder{id: "ollama:" + model, fn: chromem.NewEmbeddingFuncOllama(model, baseURL), concurrency: 4}
}

// NewOpenAIEmbedder embeds with model through an OpenAI-compatible
// /embeddings endpoint under baseURL (e.g. "http://host:8000/v1"); apiKey
// may be "". Its ID is "openai:<model>".
func NewOpenAIEmbedder(baseURL, apiKey, model string) *FuncEmbedder {
	return &FuncEmbedder{id: "openai:" + model, fn: chromem.NewEmbeddingFuncOpenAICompat(baseURL, apiKey, model, nil), concurrency: 4}
}

// ID returns "ollama:<model>" or "openai:<model>".
func (f *FuncEmbedder) ID() string { return f.id }

// Dim returns the vector length seen so far, 0 before the first call.
func (f *FuncEmbedder) Dim() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dim
}

// Embed calls the endpoint once per text, a few at a time.
func (f *FuncEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	errs := make([]error, len(texts))
	sem := make(chan struct{}, max(1, f.concurrency))
	var wg sync.WaitGroup
	for i, t := range texts {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			v, err := f.fn(ctx, t)
			if err != nil {
				errs[i] = err
				return
			}
			v = append([]float32(nil), v...)
			normalize(v)
			out[i] = v
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("embed text %d with %s: %w", i, f.id, err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range out {
		if f.dim == 0 {
			f.dim = len(v)
		}
		if len(v) != f.dim {
			return nil, fmt.Errorf("embed with %s: got a %d-dimensional vector after %d-dimensional ones", f.id, len(v), f.dim)
		}
	}
	return out, nil
}

// embedderKind reports the family of an embedder ID: "hash", "lsa",
// "ollama", "openai" or "" when unknown.
func embedderKind(id string) string {
	switch {
	case strings.HasPrefix(id, "hash-"):
		return "hash"
	case strings.HasPrefix(id, "lsa-"):
		return "lsa"
	case strings.HasPrefix(id, "ollama:"):
		return "ollama"
	case strings.HasPrefix(id, "openai:"):
		return "openai"
	}
	return ""
}

// builtinFromID returns the built-in embedder recorded as id, or nil when id
// is not a built-in embedder's.
func builtinFromID(id string, dim int) Embedder {
	if embedderKind(id) != "hash" {
		return nil
	}
	h := NewHashEmbedder(dim)
	if h.ID() != id {
		return nil
	}
	return h
}
