package index

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	chromem "github.com/philippgille/chromem-go"
)

// vectorStore is the vector leg: a chromem-go database with one collection
// per component ("S", "E", "M", "C"), held in memory and persisted as one
// export file per index generation (writing one file per document, chromem's
// persistent mode, is too slow for bulk builds).
type vectorStore struct {
	db   *chromem.DB
	cols map[string]*chromem.Collection
	flat map[string]*flatCollection // set by flatten for querying
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

// flatCollection holds one component's vectors as a dense row-major
// matrix for querying. chromem-go scores with a scalar loop; one gonum
// BLAS matrix-vector product over the same vectors gives the same cosine
// scores several times faster (docs/changelog.md).
type flatCollection struct {
	ids     []string
	library []string
	version []string
	mat     blas32.General // len(ids) × dim
	scratch sync.Pool      // []float32 of len(ids)
	dim     int
}

// flatten copies the vectors of the given unit IDs out of the chromem
// collections into flat matrices, then drops the chromem copies. Units
// missing from the store are skipped.
func (vs *vectorStore) flatten(ctx context.Context, units map[string][]string, dim int) error {
	vs.flat = map[string]*flatCollection{}
	for comp, c := range vs.cols {
		ids := units[comp]
		fc := &flatCollection{dim: dim}
		data := make([]float32, 0, len(ids)*dim)
		for _, id := range ids {
			d, err := c.GetByID(ctx, id)
			if err != nil {
				continue
			}
			if len(d.Embedding) != dim {
				return fmt.Errorf("%w: vector %s has dimension %d, manifest says %d", ErrCorrupt, id, len(d.Embedding), dim)
			}
			fc.ids = append(fc.ids, id)
			fc.library = append(fc.library, d.Metadata["library"])
			fc.version = append(fc.version, d.Metadata["version"])
			data = append(data, d.Embedding...)
		}
		n := len(fc.ids)
		fc.mat = blas32.General{Rows: n, Cols: dim, Stride: dim, Data: data}
		fc.scratch.New = func() any { s := make([]float32, n); return &s }
		vs.flat[comp] = fc
	}
	vs.db, vs.cols = nil, nil
	return nil
}

// vectorDefaultComponents are the components the vector leg scores when a
// query names none. Hashed vectors of example and implementation code
// added nothing to hit@5 or hit@1 on the natural-language and docstring
// query sets (the lexical leg still matches examples) and were half of the
// leg's time (docs/retrieval.md).
var vectorDefaultComponents = []string{CompS, CompM}

// searchFlat scores every vector of the searched components (f's, or
// vectorDefaultComponents) against qv and returns the n best per component
// passing f, merged best first.
func (vs *vectorStore) searchFlat(qv []float32, f filter, n int) []vectorHit {
	comps := f.Components
	if len(comps) == 0 {
		comps = vectorDefaultComponents
	}
	var out []vectorHit
	for _, comp := range comps {
		fc := vs.flat[comp]
		if fc == nil || len(fc.ids) == 0 || len(qv) != fc.dim {
			continue
		}
		sp := fc.scratch.Get().(*[]float32)
		scores := *sp
		blas32.Gemv(blas.NoTrans, 1, fc.mat, blas32.Vector{N: fc.dim, Inc: 1, Data: qv}, 0, blas32.Vector{N: len(scores), Inc: 1, Data: scores})
		top := make([]vectorHit, 0, n+1)
		for i, s := range scores {
			if (f.Library != "" && fc.library[i] != f.Library) || (f.Version != "" && fc.version[i] != f.Version) {
				continue
			}
			if len(top) == n && s <= top[n-1].Similarity {
				continue
			}
			// insert keeping top sorted (n is small)
			j := len(top)
			top = append(top, vectorHit{})
			for j > 0 && top[j-1].Similarity < s {
				top[j] = top[j-1]
				j--
			}
			top[j] = vectorHit{ID: fc.ids[i], Similarity: s}
			if len(top) > n {
				top = top[:n]
			}
		}
		fc.scratch.Put(sp)
		out = append(out, top...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Similarity > out[j].Similarity })
	return out
}
