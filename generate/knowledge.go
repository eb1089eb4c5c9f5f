package generate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/pool"
)

// Knowledge sources accepted by ParseSource.
const (
	SourceNone   = "none"   // no reference documentation
	SourceOracle = "oracle" // the target API's own bundle, rendered for the condition (RQ1)
	SourceHybrid = "hybrid" // novelapi's hybrid retrieval (BM25 + vectors, RRF), top K APIs rendered
	SourcePaper  = "paper"  // the published baseline: dense top-5 512-word chunks (§6)
)

// Sources lists the knowledge sources.
var Sources = []string{SourceNone, SourceOracle, SourceHybrid, SourcePaper}

// ErrNoBundle reports a task whose API has no bundle in the oracle's
// bundles; such tasks are skipped, not retried.
var ErrNoBundle = errors.New("no bundle in the bundles file for")

// Knowledge is the reference documentation chosen for one task.
type Knowledge struct {
	Text string // rendered text for the prompt; "" for none
	// Hits lists the retrieved APIs in rank order (retrieval sources only).
	Hits []string
	// TargetRank is the 1-based rank of the task's API among Hits, 0 if absent.
	TargetRank int
}

// A KnowledgeSource produces the knowledge for a task under a condition.
// Implementations must be safe for concurrent use.
type KnowledgeSource interface {
	Knowledge(ctx context.Context, t *pool.Task, c bundles.Condition) (Knowledge, error)
	Name() string
}

// None gives no knowledge.
type None struct{}

// Name returns "none".
func (None) Name() string { return SourceNone }

// Knowledge returns the empty Knowledge.
func (None) Knowledge(context.Context, *pool.Task, bundles.Condition) (Knowledge, error) {
	return Knowledge{}, nil
}

// Oracle renders the task's own bundle (the oracle setting, RQ1).
type Oracle struct {
	Bundles map[string]*bundles.Bundle // api_name (and aliases) → bundle
	// Versions maps api_name + "@" + Provenance.Version → bundle, for tasks
	// naming a bundle_version (several bundles share an api_name in
	// imported pools); nil means none.
	Versions map[string]*bundles.Bundle
}

// NewOracle indexes bs by api_name and every recorded alias, and by
// api_name and Provenance.Version.
func NewOracle(bs []bundles.Bundle) *Oracle {
	o := &Oracle{Bundles: make(map[string]*bundles.Bundle, len(bs))}
	for i := range bs {
		b := &bs[i]
		o.Bundles[b.APIName] = b
		if b.Provenance != nil && b.Provenance.Version != "" {
			if o.Versions == nil {
				o.Versions = map[string]*bundles.Bundle{}
			}
			o.Versions[b.APIName+"@"+b.Provenance.Version] = b
		}
		if b.Provenance != nil {
			for _, a := range b.Provenance.Aliases {
				if _, dup := o.Bundles[a]; !dup {
					o.Bundles[a] = b
				}
			}
		}
	}
	return o
}

// Name returns "oracle".
func (*Oracle) Name() string { return SourceOracle }

// Knowledge renders the task's bundle for c (the one of its
// bundle_version when the task names one); a task whose API (or version)
// has no bundle is an error naming the API, and so is an empty rendering of a non-none
// condition (§2.2).
func (o *Oracle) Knowledge(_ context.Context, t *pool.Task, c bundles.Condition) (Knowledge, error) {
	if c == bundles.Condition("none") {
		return Knowledge{}, nil
	}
	b, ok := o.Bundles[t.APIName]
	if t.BundleVersion != "" {
		b, ok = o.Versions[t.APIName+"@"+t.BundleVersion]
		if !ok {
			return Knowledge{}, fmt.Errorf("%w: %s version %q", ErrNoBundle, t.APIName, t.BundleVersion)
		}
	}
	if !ok {
		return Knowledge{}, fmt.Errorf("%w: %s", ErrNoBundle, t.APIName)
	}
	text, err := bundles.RenderNonEmpty(b, c)
	if err != nil {
		return Knowledge{}, err
	}
	return Knowledge{Text: text}, nil
}

// Retrieved searches an index with the task's query (description + "\n" +
// context code, as §6) and renders the top K APIs' bundles for the
// condition, joined by the protocol's chunk separator. With the Paper
// retriever the chunks themselves are joined, as §6 does.
type Retrieved struct {
	Index     *index.Index
	Retriever index.Retriever // index.Hybrid or index.Paper
	// K is the number of APIs (hybrid) or chunks (paper) used; 0 means
	// DefaultRetrievedK for hybrid and 5 for paper.
	K int
	// SameLibrary restricts retrieval to the task's library.
	SameLibrary bool
}

// DefaultRetrievedK is the number of API bundles placed in a hybrid prompt.
const DefaultRetrievedK = 3

// Name returns the retriever's name.
func (r *Retrieved) Name() string { return string(r.Retriever) }

// Query returns the retrieval query of a task (docs/protocol.md §6).
func Query(t *pool.Task) string { return t.Description + "\n" + t.ContextCode }

// Knowledge retrieves and renders knowledge for t.
func (r *Retrieved) Knowledge(ctx context.Context, t *pool.Task, c bundles.Condition) (Knowledge, error) {
	if c == bundles.Condition("none") {
		return Knowledge{}, nil
	}
	k := r.K
	if k <= 0 {
		k = DefaultRetrievedK
		if r.Retriever == index.Paper {
			k = 5
		}
	}
	q := index.Query{Text: Query(t), K: k, Retriever: r.Retriever}
	if r.SameLibrary {
		q.Library = t.Library
	}
	hits, err := r.Index.Search(ctx, q)
	if err != nil {
		return Knowledge{}, fmt.Errorf("retrieve: %w", err)
	}
	var kn Knowledge
	var parts []string
	for i, h := range hits {
		kn.Hits = append(kn.Hits, h.APIName)
		if kn.TargetRank == 0 && h.APIName == t.APIName {
			kn.TargetRank = i + 1
		}
		if r.Retriever == index.Paper {
			parts = append(parts, h.Chunks...)
			continue
		}
		b, ok := r.Index.Bundle(h.APIName)
		if !ok {
			continue
		}
		if s := bundles.Render(b, c); s != "" {
			parts = append(parts, s)
		}
	}
	if r.Retriever == index.Paper && len(parts) > k {
		parts = parts[:k]
	}
	kn.Text = strings.Join(parts, index.PaperSeparator)
	return kn, nil
}
