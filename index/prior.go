package index

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/novelapi/novelapi/bundles"
)

// internalSegments are module path segments that mark an implementation
// module rather than a documented import path (pandas.core.*, *.internals.*,
// *.tests.*); a segment starting with "_" marks a private one (PEP 8,
// "Public and internal interfaces").
var internalSegments = map[string]bool{"core": true, "internals": true, "tests": true, "testing": true}

// internalName reports whether a qualified name goes through an internal or
// private path segment (the first segment, the library, never counts).
func internalName(name string) bool {
	segs := strings.Split(name, ".")
	for _, s := range segs[1:] {
		if strings.HasPrefix(s, "_") && !strings.HasPrefix(s, "__") || internalSegments[s] {
			return true
		}
	}
	return false
}

// publicAPI reports whether any name of b (qualified name or alias) is a
// public import path.
func publicAPI(b *bundles.Bundle) bool {
	for _, n := range b.Names() {
		if !internalName(n) {
			return true
		}
	}
	return false
}

// internalFactor scales the fused score of an API that has no public
// import path. Users ask for the documented API; an implementation-module
// twin (pandas.core.reshape.reshape.stack beside DataFrame.stack) or helper
// should rank below an equally good public match, yet stay in the list.
// Chosen on the nl, smoke and task sets together (docs/retrieval.md).
const internalFactor = 0.8

// applyPrior scales the fused scores of APIs reachable only through
// internal paths by internalFactor and re-sorts. APIs the query names
// exactly keep their score.
func (ix *Index) applyPrior(fs []fused) {
	for i := range fs {
		if !fs[i].exact && !ix.public[fs[i].key] {
			fs[i].score *= internalFactor
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].score > fs[j].score })
}

// PublicImports returns the public import paths among names (see
// internalName), fewest segments first, ties alphabetically.
func PublicImports(names []string) []string {
	var out []string
	for _, n := range names {
		if !internalName(n) {
			out = append(out, n)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "."), strings.Count(b, ".")), strings.Compare(a, b))
	})
	return out
}

// PreferredImport returns the import path to show users for an API with
// these names (qualified name first, then aliases): the public path (see
// internalName) with the fewest segments, ties broken alphabetically; the
// first name when none is public. The protocol's api_name keeps the
// defining module's path (pandas.io.parsers.readers.read_csv), while code
// imports pandas.read_csv.
func PreferredImport(names []string) string {
	if public := PublicImports(names); len(public) > 0 {
		return public[0]
	}
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// libraryHintFactor scales the fused score of an API from another library
// when the question names exactly one library ("in pandas", "np.", "a
// DataFrame"): users who name a library want its API, and the ordinary
// words of a pandas question ("distribution", "skew") otherwise match
// scipy.stats as well. The library words are often too common to count in
// the lexical leg (maxQueryDF). Chosen on the nl and held-out 1–4 sets
// (hit@1 +0.7 to +1.3 points each, hit@5 unchanged; 0.6 gave the same),
// measured blind on nl-heldout5 (docs/retrieval.md).
const libraryHintFactor = 0.8

// libraryWords maps the words that name a library in a question to it.
var libraryWords = map[string]string{
	"numpy": "numpy", "np": "numpy",
	"scipy":  "scipy",
	"pandas": "pandas", "pd": "pandas", "dataframe": "pandas", "dataframes": "pandas",
}

// namedLibrary returns the one library the question line of text names, or
// "" when it names none or several.
func namedLibrary(text string) string {
	lib := ""
	for _, w := range queryWords(questionLine(text)) {
		l, ok := libraryWords[w]
		switch {
		case !ok || l == lib:
		case lib == "":
			lib = l
		default:
			return ""
		}
	}
	return lib
}

// applyLibraryHint scales by libraryHintFactor the scores of the APIs
// outside the library the question names (see namedLibrary), except those
// the query names exactly, and re-sorts.
func (ix *Index) applyLibraryHint(fs []fused, text string) {
	lib := namedLibrary(text)
	if lib == "" {
		return
	}
	for i := range fs {
		if b := ix.byKey[fs[i].key]; b != nil && !fs[i].exact && b.Library != lib {
			fs[i].score *= libraryHintFactor
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].score > fs[j].score })
}
