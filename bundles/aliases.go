package bundles

import (
	"iter"
	"regexp"
	"strings"
)

// importAsRE matches an "import M as A" line of code or of a doctest
// ("import numpy as np", ">>> import matplotlib.pyplot as plt").
var importAsRE = regexp.MustCompile(`(?m)^[ \t]*(?:>>>|\.\.\.)?[ \t]*import[ \t]+([A-Za-z_][\w.]*)[ \t]+as[ \t]+([A-Za-z_]\w*)[ \t]*$`)

// minAliasCount is how often "import M as A" must be seen for A to be
// learned: once may be one docstring's choice.
const minAliasCount = 2

// Aliases maps the import aliases a library's documentation uses to the
// modules they stand for ("np" → "numpy", "plt" → "matplotlib.pyplot").
type Aliases map[string]string

// LearnAliases learns import aliases from texts (docstrings, example
// code): for each module M the most common A of the lines "import M as A"
// (ties: the lexicographically first), seen at least twice; an alias used
// for several modules stands for the one it was seen with most. No table
// per library: numpy's and pandas' docstrings give np and pd, networkx's
// nx, matplotlib's plt.
func LearnAliases(texts iter.Seq[string]) Aliases {
	counts := map[string]map[string]int{} // module → alias → n
	for t := range texts {
		if !strings.Contains(t, " as ") {
			continue
		}
		for _, m := range importAsRE.FindAllStringSubmatch(t, -1) {
			if counts[m[1]] == nil {
				counts[m[1]] = map[string]int{}
			}
			counts[m[1]][m[2]]++
		}
	}
	type best struct {
		module string
		n      int
	}
	byAlias := map[string]best{}
	for mod, as := range counts {
		alias, n := "", 0
		for a, k := range as {
			if k > n || (k == n && a < alias) {
				alias, n = a, k
			}
		}
		if n < minAliasCount || alias == mod {
			continue
		}
		if b, ok := byAlias[alias]; !ok || n > b.n || (n == b.n && mod < b.module) {
			byAlias[alias] = best{mod, n}
		}
	}
	out := Aliases{}
	for a, b := range byAlias {
		out[a] = b.module
	}
	return out
}

// Expand returns the dotted name with a leading learned alias replaced by
// its module ("np.unstack" → "numpy.unstack"); other names are returned
// as they are.
func (a Aliases) Expand(name string) string {
	if first, rest, ok := strings.Cut(name, "."); ok && a[first] != "" {
		return a[first] + "." + rest
	}
	return name
}

// ExampleCode yields the code of every example of bs, the text
// [LearnAliases] learns the aliases of served bundles from.
func ExampleCode(bs []Bundle) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range bs {
			for _, e := range bs[i].Examples {
				if !yield(e.Code) {
					return
				}
			}
		}
	}
}

// surfaceDocs yields the docstrings of s's entries.
func surfaceDocs(s *Surface) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range s.Entries {
			if d := s.Entries[i].Docstring; d != nil && !yield(*d) {
				return
			}
		}
	}
}
