package index

import (
	"strings"
	"unicode"
)

// nameTable resolves identifiers written in a query to API keys.
type nameTable struct {
	full   map[string][]string // lowercased qualified name or alias → keys
	suffix map[string][]string // lowercased dotted suffix ("series.case_when", "case_when") → keys
}

func newNameTable() *nameTable {
	return &nameTable{full: map[string][]string{}, suffix: map[string][]string{}}
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// add records the names of the API at key.
func (t *nameTable) add(key string, names []string) {
	for _, n := range names {
		ln := strings.ToLower(n)
		t.full[ln] = appendUnique(t.full[ln], key)
		segs := strings.Split(ln, ".")
		for i := 1; i < len(segs); i++ {
			s := strings.Join(segs[i:], ".")
			t.suffix[s] = appendUnique(t.suffix[s], key)
		}
	}
}

// identShaped reports whether a query token is written like a code
// identifier rather than an English word: it has a dot or underscore, a
// lower-to-upper case change, or is followed by "(" or wrapped in backticks.
func identShaped(tok string, before, after byte) bool {
	if strings.ContainsAny(tok, "._") || after == '(' || before == '`' {
		return true
	}
	prevLower := false
	for _, r := range tok {
		if unicode.IsUpper(r) && prevLower {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}

// lookup returns the keys of the APIs that query names exactly, in query
// order: a qualified name or alias anywhere in the query; a dotted suffix
// ("Series.case_when", "np.linalg.matrix_norm" → "linalg.matrix_norm") or a
// leaf written like an identifier ("read_csv", "cumulative_sum(") ; or a
// leaf when the whole query is that one word.
func (t *nameTable) lookup(query string) []string {
	toks := identTokenizer{}.Tokenize([]byte(query))
	var keys []string
	addAll := func(ks []string) {
		for _, k := range ks {
			keys = appendUnique(keys, k)
		}
	}
	single := len(toks) == 1
	for _, tok := range toks {
		s := strings.ToLower(string(tok.Term))
		if ks, ok := t.full[s]; ok {
			addAll(ks)
			continue
		}
		var before, after byte
		if tok.Start > 0 {
			before = query[tok.Start-1]
		}
		if tok.End < len(query) {
			after = query[tok.End]
		}
		if !single && !identShaped(string(tok.Term), before, after) {
			continue
		}
		for cand := s; cand != ""; {
			if ks, ok := t.suffix[cand]; ok {
				addAll(ks)
				break
			}
			i := strings.IndexByte(cand, '.')
			if i < 0 {
				break
			}
			cand = cand[i+1:]
		}
	}
	return keys
}
