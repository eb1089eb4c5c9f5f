package index

import (
	"slices"
	"strings"

	"github.com/hbollon/go-edlib"

	"github.com/novelapi/novelapi/internal/nearest"
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
	var out []nearest.Scored
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
			s = 2 + nearest.Abs(len(leaf)-len(qLeaf))/4
		default:
			limit := max(2, len(qLeaf)/3)
			if nearest.Abs(len(leaf)-len(qLeaf)) > limit && nearest.Abs(len(lc)-len(q)) > limit {
				continue
			}
			d := min(edlib.LevenshteinDistance(leaf, qLeaf), edlib.LevenshteinDistance(lc, q))
			if d > limit {
				continue
			}
			s = 4 + d
		}
		out = append(out, nearest.Scored{Name: c, Score: s})
	}
	return nearest.Best(out, n)
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
