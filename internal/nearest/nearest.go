// Package nearest keeps the names nearest a query, for "did you mean"
// answers: the caller scores each candidate (its own rules of what is near)
// and [Best] orders and cuts the list the same way everywhere.
package nearest

import (
	"cmp"
	"slices"
	"strings"
)

// Scored is a candidate name with its distance from the query; lower is
// nearer.
type Scored struct {
	Name  string
	Score int
}

// Best returns the names of up to n candidates, nearest first; ties go to
// the shorter name, then to the name in byte order. cands is reordered.
func Best(cands []Scored, n int) []string {
	slices.SortFunc(cands, func(a, b Scored) int {
		return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(len(a.Name), len(b.Name)), strings.Compare(a.Name, b.Name))
	})
	names := make([]string, 0, max(0, min(n, len(cands))))
	for _, s := range cands[:max(0, min(n, len(cands)))] {
		names = append(names, s.Name)
	}
	return names
}

// Abs is |x|, for length differences.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
