package index

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unicode"

	chromem "github.com/philippgille/chromem-go"

	"github.com/novelapi/novelapi/bundles"
)

// Chunking of the published retrieval baseline (docs/protocol.md §6).
const (
	PaperChunkWords = 512
	PaperChunkStep  = 448
	// PaperSeparator joins the retrieved chunks into the knowledge text.
	PaperSeparator = "\n\n---\n\n"
)

// PySplit splits s like Python's str.split() with no argument: on runs of
// characters for which str.isspace() is true, which adds \x1c–\x1f to Go's
// unicode.IsSpace (docs/protocol.md §9 item 2).
func PySplit(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) })
}

// PaperChunks cuts text into the protocol's windows: 512 words starting at
// every multiple of 448 below the word count, the tail included (460 words
// give chunks of 460 and 12), each joined by single spaces (§6).
func PaperChunks(text string) []string {
	words := PySplit(text)
	var out []string
	for start := 0; start < len(words); start += PaperChunkStep {
		c := strings.Join(words[start:min(start+PaperChunkWords, len(words))], " ")
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// JoinChunks joins retrieved chunks in rank order as the protocol's
// knowledge_text (§6).
func JoinChunks(chunks []string) string { return strings.Join(chunks, PaperSeparator) }

type paperKey struct {
	cond                     bundles.Condition
	domain, library, version string
}

// paperIndex is one (condition, pool) dense index of chunks.
type paperIndex struct {
	keys   []string // chunk i belongs to API key keys[i]
	texts  []string
	col    *chromem.Collection
	chunks int
}

// paperPool returns the dense chunk index for q's condition and pool,
// building it on first use with the index's embedder.
func (ix *Index) paperPool(ctx context.Context, q Query, f filter) (*paperIndex, error) {
	if ix.vec == nil || ix.emb == nil {
		return nil, fmt.Errorf("%w: the paper retriever needs the embedder: %s", ErrVectorDisabled, strings.Join(ix.notices, "; "))
	}
	pk := paperKey{cond: q.Condition, domain: q.Domain, library: f.Library, version: f.Version}
	ix.paperMu.Lock()
	defer ix.paperMu.Unlock()
	if ix.closed {
		return nil, ErrClosed
	}
	if p := ix.paper[pk]; p != nil {
		return p, nil
	}
	p := &paperIndex{}
	for i := range ix.all {
		b := &ix.all[i]
		if (q.Domain != "" && b.Domain != q.Domain) || !f.allows(b) {
			continue
		}
		key := bundleKey(b)
		for _, c := range PaperChunks(bundles.Render(b, q.Condition)) {
			p.keys = append(p.keys, key)
			p.texts = append(p.texts, c)
		}
	}
	p.chunks = len(p.texts)
	db := chromem.NewDB()
	col, err := db.CreateCollection("paper", nil, noEmbed)
	if err != nil {
		return nil, err
	}
	const batch = 512
	for start := 0; start < len(p.texts); start += batch {
		end := min(start+batch, len(p.texts))
		vecs, err := ix.emb.Embed(ctx, p.texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("embed paper chunks: %w", err)
		}
		docs := make([]chromem.Document, end-start)
		for i := range docs {
			docs[i] = chromem.Document{ID: strconv.Itoa(start + i), Embedding: vecs[i]}
		}
		if err := col.AddDocuments(ctx, docs, runtime.NumCPU()); err != nil {
			return nil, fmt.Errorf("add paper chunks: %w", err)
		}
	}
	p.col = col
	ix.paper[pk] = p
	return p, nil
}

// paperRanking returns the chunk indexes of the n best chunks (all when
// n <= 0), best first: a dense inner-product search (§6).
func (p *paperIndex) ranking(ctx context.Context, qv []float32, n int) ([]int, error) {
	if p.chunks == 0 {
		return nil, nil
	}
	if n <= 0 || n > p.chunks {
		n = p.chunks
	}
	res, err := p.col.QueryEmbedding(ctx, qv, n, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("paper search: %w", err)
	}
	out := make([]int, len(res))
	for i, r := range res {
		out[i], _ = strconv.Atoi(r.ID)
	}
	return out, nil
}

// searchPaper answers q with the published baseline: the top K chunks of
// the condition's rendering, grouped per API (a Hit's Rank is the rank of
// its first chunk among the K, so fewer than K hits may come back).
func (ix *Index) searchPaper(ctx context.Context, q Query, f filter) ([]Hit, error) {
	p, err := ix.paperPool(ctx, q, f)
	if err != nil {
		return nil, err
	}
	qv, err := ix.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	rank, err := p.ranking(ctx, qv[0], q.K)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	pos := map[string]int{}
	for r, ci := range rank {
		key := p.keys[ci]
		if i, ok := pos[key]; ok {
			hits[i].Chunks = append(hits[i].Chunks, p.texts[ci])
			continue
		}
		b := ix.byKey[key]
		pos[key] = len(hits)
		hits = append(hits, Hit{
			APIName: b.APIName, Library: b.Library, Version: bundleVersion(b), Novelty: novelty(b),
			Score: 1 / float64(r+1), Rank: r + 1, Chunks: []string{p.texts[ci]}, Instances: b.PublicInstances(),
		})
	}
	return hits, nil
}

// PaperKnowledge returns the knowledge text the published baseline would
// put in the prompt for q: its top K (default 5) chunks in rank order,
// joined by PaperSeparator (§6). q.Retriever is ignored.
func (ix *Index) PaperKnowledge(ctx context.Context, q Query) (string, error) {
	q.Retriever = Paper
	q, f, err := ix.validate(q)
	if err != nil {
		return "", err
	}
	p, err := ix.paperPool(ctx, q, f)
	if err != nil {
		return "", err
	}
	qv, err := ix.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return "", fmt.Errorf("embed query: %w", err)
	}
	rank, err := p.ranking(ctx, qv[0], q.K)
	if err != nil {
		return "", err
	}
	chunks := make([]string, len(rank))
	for i, ci := range rank {
		chunks[i] = p.texts[ci]
	}
	return JoinChunks(chunks), nil
}

// paperTargetRank returns the 1-based rank of the first chunk of the API
// named apiName in the full ranking of q's pool, 0 when it has no chunk
// (the protocol's target_rank, §6).
func (ix *Index) paperTargetRank(ctx context.Context, q Query, apiName string) (int, error) {
	q.Retriever = Paper
	q, f, err := ix.validate(q)
	if err != nil {
		return 0, err
	}
	p, err := ix.paperPool(ctx, q, f)
	if err != nil {
		return 0, err
	}
	qv, err := ix.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return 0, fmt.Errorf("embed query: %w", err)
	}
	rank, err := p.ranking(ctx, qv[0], 0)
	if err != nil {
		return 0, err
	}
	for r, ci := range rank {
		if strings.HasPrefix(p.keys[ci], apiName+"@") {
			return r + 1, nil
		}
	}
	return 0, nil
}
