package mcpserver

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/pyversion"
)

// Store is what the server reads: the search index and its bundles.
// [OpenIndex] and [NewIndexStore] adapt an *index.Index; the server never
// sees index types beyond this file and index_store.go. Implementations
// must be safe for concurrent use.
type Store interface {
	// Search ranks APIs for q, best first, at most q.K of them, one hit
	// per API and version.
	Search(ctx context.Context, q SearchQuery) ([]SearchHit, error)
	// Bundle returns the bundle of an API by its name or any alias
	// (another import path of the same object), in any letter case, at
	// version ("" means the highest indexed).
	Bundle(name, version string) (*bundles.Bundle, bool)
	// BundleFrom is Bundle from one source: a kind ("debian", "private")
	// or a whole label (index.SourceOf); "" means any.
	BundleFrom(name, version, source string) (*bundles.Bundle, bool)
	// Bundles returns every indexed bundle; callers must not modify them.
	Bundles() []bundles.Bundle
	// Notices lists conditions that degrade search, e.g. "vector search is
	// off: ..." (scenario T19); nil when none.
	Notices() []string
	// Info describes what is served: generation, counts, what the build
	// left out.
	Info() StoreInfo
	// Close releases the index.
	Close() error
}

// A Snapshotter is a [Store] whose content can be replaced while it is
// served, such as an index directory that is rebuilt. Snapshot returns the
// store of the content live now, named by generation, which stays usable
// until release is called (exactly once), whatever replaces it meanwhile.
// The Store methods of a Snapshotter itself answer from the live content
// of the moment of each call.
type Snapshotter interface {
	Store
	Snapshot() (st Store, generation string, release func())
}

// StoreInfo describes the content of a [Store].
type StoreInfo struct {
	Generation string `json:"generation,omitempty"` // index generation ("gen-000007"); "" when not from a directory
	Bundles    int    `json:"bundles"`
	// Skipped counts the bundles the build left out (bad input lines,
	// index build --skip-bad); SkippedNames lists some of them.
	Skipped      int      `json:"skipped,omitempty"`
	SkippedNames []string `json:"skipped_names,omitempty"`
}

// A SearchQuery is one ranked search. Library and Version, when non-empty,
// restrict the hits to that library key and exact version label.
type SearchQuery struct {
	Text       string
	Library    string
	Version    string
	Components bundles.Components // the components whose text is searched; 0 means all
	K          int
}

// A SearchHit is one ranked API.
type SearchHit struct {
	APIName string
	Library string
	Version string  // the bundle's version label; "" when unversioned
	Source  string  // where the bundle came from (index.SourceOf): "debian:trixie", "private:/src/numpy"
	Score   float64 // the index ranker's score; higher is better, comparable within one answer only
	// Weak marks a hit found only by vector similarity while nothing
	// matched lexically or by name: a neighbour, not a match (T15).
	Weak bool
	// Exact reports whether the query names this API by the index's
	// exact-name rule: its qualified name or an alias (also with the np,
	// pd or sp import alias), a dotted suffix ("DataFrame.map") or an
	// identifier-shaped leaf. Such hits rank first.
	Exact bool
}

// bundleVersion returns the version label of b: its provenance version, or
// "" for published bundles that carry none.
func bundleVersion(b *bundles.Bundle) string {
	if b.Provenance != nil {
		return b.Provenance.Version
	}
	return ""
}

// A catalog summarises the index for listing, name suggestions and version
// resolution; it is built once when the index is loaded.
type catalog struct {
	names    []string            // canonical API names, sorted
	allNames []string            // names plus aliases, for suggestions
	libs     map[string]*libInfo // by library key
	libKeys  []string            // sorted library keys
	libAlias map[string]string   // other names of a library (provenance import name) → key
	apiVers  map[string][]string // API name → its indexed versions
	kinds    map[string][]string // library → its source kinds (index.SourcePrivate first)
	labels   map[string][]string // library, and API name, → its source labels (index.SourceOf), sorted
	sources  []string            // every source label of the index, sorted
}

// libInfo describes one library of the index.
type libInfo struct {
	Library  string       `json:"library"`
	Domain   string       `json:"domain,omitempty"`
	Versions []libVersion `json:"versions"`
	byVer    map[string]*libVersion
}

// libVersion counts one library version's APIs.
type libVersion struct {
	Version     string `json:"version"`               // "" for unversioned (published) bundles
	OldVersion  string `json:"old_version,omitempty"` // version diffed against
	APIs        int    `json:"apis"`
	New         int    `json:"new"`
	Modified    int    `json:"signature_modified"`
	Environment string `json:"environment,omitempty"`
	ImportName  string `json:"import_name,omitempty"`
	// Source is where the library's bundles came from: "Debian SUITE", or
	// for a private library the path it was added from (docs/private.md);
	// "" when the bundles do not say.
	Source string `json:"source,omitempty"`
	// Private is set for a library added with novelapi add; its APIs
	// count in New when it was served whole.
	Private bool   `json:"private,omitempty"`
	kind    string // index.SourceOf's kind
}

func buildCatalog(st Store) *catalog {
	c := &catalog{libs: map[string]*libInfo{}, libAlias: map[string]string{}, apiVers: map[string][]string{}, kinds: map[string][]string{}, labels: map[string][]string{}}
	seen := map[string]bool{}
	all := st.Bundles()
	for i := range all {
		b := &all[i]
		if !seen[b.APIName] {
			c.names = append(c.names, b.APIName)
		}
		c.apiVers[b.APIName] = append(c.apiVers[b.APIName], bundleVersion(b))
		for _, a := range b.Names() {
			if !seen[a] {
				seen[a] = true
				c.allNames = append(c.allNames, a)
			}
		}
		li := c.libs[b.Library]
		if li == nil {
			li = &libInfo{Library: b.Library, Domain: b.Domain, byVer: map[string]*libVersion{}}
			c.libs[b.Library] = li
		}
		v := bundleVersion(b)
		kind := sourceKind(b)
		label := index.SourceOf(b)
		for _, k := range []string{b.Library, b.APIName} {
			if !slices.Contains(c.labels[k], label) {
				c.labels[k] = append(c.labels[k], label)
			}
		}
		if !slices.Contains(c.sources, label) {
			c.sources = append(c.sources, label)
		}
		if !slices.Contains(c.kinds[b.Library], kind) {
			c.kinds[b.Library] = append(c.kinds[b.Library], kind)
		}
		lv := li.byVer[v+"\x00"+kind]
		if lv == nil {
			lv = &libVersion{Version: v, kind: kind}
			if p := b.Provenance; p != nil {
				lv.OldVersion, lv.Environment, lv.ImportName = p.OldVersion, p.Environment, p.Library
				switch {
				case p.Source != "":
					lv.Source, lv.Private = p.Source, true
				case p.Suite != "":
					lv.Source = "Debian " + p.Suite
				}
				if p.Library != "" && p.Library != b.Library {
					c.libAlias[p.Library] = b.Library
				}
			}
			li.byVer[v+"\x00"+kind] = lv
		}
		lv.APIs++
		if b.IsModified {
			lv.Modified++
		} else {
			lv.New++
		}
	}
	for k, li := range c.libs {
		c.libKeys = append(c.libKeys, k)
		for _, lv := range li.byVer {
			li.Versions = append(li.Versions, *lv)
		}
		slices.SortFunc(li.Versions, func(a, b libVersion) int {
			if c := pyversion.CompareStrings(a.Version, b.Version); c != 0 {
				return c
			}
			return strings.Compare(a.kind, b.kind)
		})
		slices.SortFunc(c.kinds[k], func(a, b string) int {
			rank := func(k string) int { return cmp.Or(map[string]int{index.SourcePrivate: 1}[k], 2) }
			return cmp.Compare(rank(a), rank(b)) // private first
		})
	}
	for _, l := range c.labels {
		slices.Sort(l)
	}
	slices.Sort(c.sources)
	slices.Sort(c.libKeys)
	slices.Sort(c.names)
	return c
}

// hasSource reports whether the library or API key has a bundle of
// source ("" any, a kind or a whole label; index.SourceMatches).
func (c *catalog) hasSource(key, source string) bool {
	return slices.ContainsFunc(c.labels[key], func(l string) bool { return index.SourceMatches(l, source) })
}

// versions returns the version labels of a library, ascending.
func (c *catalog) versions(lib string) []string { return c.versionsFrom(lib, "") }

// versionsFrom returns the version labels of a library's bundles of one
// source kind ("" any), ascending.
func (c *catalog) versionsFrom(lib, kind string) []string {
	li := c.libs[lib]
	if li == nil {
		return nil
	}
	var out []string
	for _, v := range li.Versions {
		if (kind == "" || v.kind == kind) && !slices.Contains(out, v.Version) {
			out = append(out, v.Version)
		}
	}
	return out
}

// sourceKind returns the kind of b's source (index.SourceOf before ':').
func sourceKind(b *bundles.Bundle) string {
	k, _, _ := strings.Cut(index.SourceOf(b), ":")
	return k
}

// library resolves a library name the agent gave to a library key.
func (c *catalog) library(name string) (string, bool) {
	known := slices.Clone(c.libKeys)
	for a := range c.libAlias {
		known = append(known, a)
	}
	k, ok := resolveLibrary(name, known)
	if !ok {
		return "", false
	}
	if key, alias := c.libAlias[k]; alias {
		return key, true
	}
	return k, true
}

// librarySummary is a one-line list of libraries and versions for messages.
func (c *catalog) librarySummary() string {
	var parts []string
	for _, k := range c.libKeys {
		vs := c.versions(k)
		label := strings.Join(slices.DeleteFunc(vs, func(s string) bool { return s == "" }), ", ")
		if label == "" {
			parts = append(parts, k)
		} else {
			parts = append(parts, k+" ("+label+")")
		}
	}
	return oneLine(strings.Join(parts, "; "))
}
