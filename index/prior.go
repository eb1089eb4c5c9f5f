package index

import (
	"cmp"
	"slices"
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

// PublicImports returns the public import paths among names (see
// internalName), fewest segments first; among paths of as many segments
// the qualified name (names[0]) comes first, then the others
// alphabetically: numpy.strings.replace before its legacy alias
// numpy.char.replace.
func PublicImports(names []string) []string {
	var out []string
	for _, n := range names {
		if !internalName(n) {
			out = append(out, n)
		}
	}
	first := ""
	if len(names) > 0 {
		first = names[0]
	}
	slices.SortStableFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(strings.Count(a, "."), strings.Count(b, ".")),
			cmp.Compare(boolRank(a != first), boolRank(b != first)), strings.Compare(a, b))
	})
	return out
}

// boolRank orders false before true.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PreferredImport returns the import path to show users for an API with
// these names (qualified name first, then aliases): the public path (see
// internalName) with the fewest segments, the qualified name on a tie, then
// alphabetically; the first name when none is public. The protocol's api_name keeps the
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

// generalLibraryWords are words of everyday use that name one library's
// central type: a question about "a DataFrame" is about pandas when the
// index holds pandas (libraryWords).
var generalLibraryWords = map[string]string{"dataframe": "pandas", "dataframes": "pandas"}

// A libraryWords maps the lowercased words that name a library in a
// question to the library (bundles.Bundle.Library), learned from the
// indexed bundles rather than kept as a table per library: each library's
// own name ("networkx", "scikit-learn"), the top-level module of its APIs
// ("sklearn"), the import alias its examples use for that module
// ("np", "nx", bundles.LearnAliases; aliases of submodules such as plt or
// F are not the library's name), and generalLibraryWords. A name of
// several words ("scikit-learn") is recorded with its words joined by
// spaces.
type libraryWords map[string]string

// newLibraryWords learns the library words of bs; aliases are the
// lowercased aliases learned from their examples (nameTable.aliases).
func newLibraryWords(bs []bundles.Bundle, aliases bundles.Aliases) libraryWords {
	w := libraryWords{}
	top := map[string]string{} // lowercased top-level module → library
	for i := range bs {
		b := &bs[i]
		if b.Library == "" {
			continue
		}
		w[strings.Join(queryWords(b.Library), " ")] = b.Library
		t := strings.ToLower(bundles.TopLevel(b.APIName))
		top[t] = b.Library
		w[t] = b.Library
	}
	for alias, mod := range aliases {
		if lib, ok := top[mod]; ok {
			if _, taken := w[alias]; !taken {
				w[alias] = lib
			}
		}
	}
	libs := map[string]bool{}
	for _, lib := range w {
		libs[lib] = true
	}
	for word, lib := range generalLibraryWords {
		if _, taken := w[word]; !taken && libs[lib] {
			w[word] = lib
		}
	}
	return w
}

// named returns the one library the question line of text names, or ""
// when it names none or several. A word is a library word, two adjacent
// words are one ("scikit learn"), or a word is "py" and a library word
// ("PyTorch").
func (w libraryWords) named(text string) string {
	lib := ""
	ws := queryWords(questionLine(text))
	for i, word := range ws {
		l, ok := w[word]
		if !ok && i+1 < len(ws) {
			l, ok = w[word+" "+ws[i+1]]
		}
		if rest, py := strings.CutPrefix(word, "py"); !ok && py && rest != "" {
			l, ok = w[rest]
		}
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
