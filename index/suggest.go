package index

import (
	"cmp"
	"slices"
	"strings"
)

// NearestNames returns up to n names from candidates closest to query: exact
// leaf matches first, then names containing the query (or its leaf), then
// by edit distance on the leaf and on the whole name. It never returns
// names farther than a generous threshold, so a nonsense query yields few
// or none.
func NearestNames(query string, candidates []string, n int) []string {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" || n <= 0 {
		return nil
	}
	qLeaf := q
	if i := strings.LastIndexByte(q, '.'); i >= 0 {
		qLeaf = q[i+1:]
	}
	type scored struct {
		name  string
		score int
	}
	var out []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		leaf := lc
		if i := strings.LastIndexByte(lc, '.'); i >= 0 {
			leaf = lc[i+1:]
		}
		var s int
		switch {
		case lc == q:
			s = 0
		case leaf == qLeaf:
			s = 1
		case len(qLeaf) >= 3 && strings.Contains(leaf, qLeaf), len(q) >= 3 && strings.Contains(lc, q):
			s = 2 + abs(len(leaf)-len(qLeaf))/4
		default:
			d := min(levenshtein(leaf, qLeaf), levenshtein(lc, q))
			limit := max(2, len(qLeaf)/3)
			if d > limit {
				continue
			}
			s = 4 + d
		}
		out = append(out, scored{c, s})
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(len(a.name), len(b.name)), strings.Compare(a.name, b.name))
	})
	names := make([]string, 0, min(n, len(out)))
	for _, s := range out[:min(n, len(out))] {
		names = append(names, s.name)
	}
	return names
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// levenshtein is the edit distance between a and b in bytes, with an early
// exit for very different lengths.
func levenshtein(a, b string) int {
	if abs(len(a)-len(b)) > 8 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// SuggestNames returns at most n names of cands near the whole query (see
// NearestNames), then near each identifier-like word of it of 4 bytes or
// more ("how do I get the qunatile" finds numpy.quantile), without
// repeats. It is what a search that found nothing offers instead.
func SuggestNames(query string, cands []string, n int) []string {
	out := NearestNames(query, cands, n)
	for _, w := range strings.FieldsFunc(query, func(r rune) bool {
		return !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if len(out) >= n || len(w) < 4 {
			continue
		}
		for _, x := range NearestNames(w, cands, n) {
			if !slices.Contains(out, x) && len(out) < n {
				out = append(out, x)
			}
		}
	}
	return out
}
