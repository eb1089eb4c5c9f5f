package index

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"

	chromem "github.com/philippgille/chromem-go"
)

// vectorStore is the vector leg: a chromem-go database with one collection
// per component ("S", "E", "M", "C"), held in memory and persisted as one
// export file per index generation (writing one file per document, chromem's
// persistent mode, is too slow for bulk builds; go-libs §3 gotcha 5).
type vectorStore struct {
	db   *chromem.DB
	cols map[string]*chromem.Collection
}

// noEmbed is the embedding function given to chromem: the index always
// passes vectors itself, and a nil function would silently mean OpenAI.
func noEmbed(context.Context, string) ([]float32, error) {
	return nil, errors.New("index: chromem must not embed by itself")
}

func newVectorStore() *vectorStore {
	return &vectorStore{db: chromem.NewDB(), cols: map[string]*chromem.Collection{}}
}

// loadVectorStore imports the export file at path.
func loadVectorStore(path string) (*vectorStore, error) {
	vs := newVectorStore()
	if err := vs.db.ImportFromFile(path, ""); err != nil {
		return nil, fmt.Errorf("load vectors %s: %w", path, err)
	}
	for name := range vs.db.ListCollections() {
		vs.cols[name] = vs.db.GetCollection(name, noEmbed)
	}
	return vs, nil
}

// save exports every collection to path (the caller renames it into place).
func (vs *vectorStore) save(path string) error {
	if err := vs.db.ExportToFile(path, false, ""); err != nil {
		return fmt.Errorf("save vectors %s: %w", path, err)
	}
	return nil
}

func (vs *vectorStore) collection(comp string) (*chromem.Collection, error) {
	if c := vs.cols[comp]; c != nil {
		return c, nil
	}
	c, err := vs.db.GetOrCreateCollection(comp, nil, noEmbed)
	if err != nil {
		return nil, fmt.Errorf("create vector collection %s: %w", comp, err)
	}
	vs.cols[comp] = c
	return c, nil
}

// add embeds units with e and adds them to their component's collection.
func (vs *vectorStore) add(ctx context.Context, e Embedder, units []unit, progress func(int)) error {
	const batch = 256
	for start := 0; start < len(units); start += batch {
		part := units[start:min(start+batch, len(units))]
		texts := make([]string, len(part))
		for i := range part {
			texts[i] = part[i].embedText()
		}
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			return err
		}
		byComp := map[string][]chromem.Document{}
		for i := range part {
			u := &part[i]
			byComp[u.Component] = append(byComp[u.Component], chromem.Document{
				ID:        u.ID,
				Embedding: vecs[i],
				Metadata:  map[string]string{"library": u.Library, "version": u.Version},
			})
		}
		for comp, docs := range byComp {
			c, err := vs.collection(comp)
			if err != nil {
				return err
			}
			if err := c.AddDocuments(ctx, docs, runtime.NumCPU()); err != nil {
				return fmt.Errorf("add vectors to %s: %w", comp, err)
			}
		}
		if progress != nil {
			progress(len(part))
		}
	}
	return nil
}

// remove deletes the units with the given IDs from every collection.
func (vs *vectorStore) remove(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	for comp, c := range vs.cols {
		if err := c.Delete(ctx, nil, nil, ids...); err != nil {
			return fmt.Errorf("delete vectors from %s: %w", comp, err)
		}
	}
	return nil
}

// vectorHit is one unit found by the vector leg.
type vectorHit struct {
	ID         string
	Similarity float32
}

// search returns up to n units per searched component, merged by cosine
// similarity, best first.
func (vs *vectorStore) search(ctx context.Context, qv []float32, f filter, n int) ([]vectorHit, error) {
	comps := f.Components
	if len(comps) == 0 {
		comps = AllComponents
	}
	var where map[string]string
	if f.Library != "" || f.Version != "" {
		where = map[string]string{}
		if f.Library != "" {
			where["library"] = f.Library
		}
		if f.Version != "" {
			where["version"] = f.Version
		}
	}
	var out []vectorHit
	for _, comp := range comps {
		c := vs.cols[comp]
		if c == nil || c.Count() == 0 {
			continue
		}
		res, err := c.QueryEmbedding(ctx, qv, min(n, c.Count()), where, nil)
		if err != nil {
			return nil, fmt.Errorf("vector search %s: %w", comp, err)
		}
		for _, r := range res {
			out = append(out, vectorHit{ID: r.ID, Similarity: r.Similarity})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Similarity > out[j].Similarity })
	return out, nil
}

// count returns the number of vectors per component.
func (vs *vectorStore) count() map[string]int {
	m := map[string]int{}
	for comp, c := range vs.cols {
		m[comp] = c.Count()
	}
	return m
}
