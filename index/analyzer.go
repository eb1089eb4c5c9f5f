package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/registry"
)

// Names under which the identifier analysis is registered with bleve.
const (
	identTokenizerName = "novelapi_ident_tok"
	identFilterName    = "novelapi_ident_split"
	identAnalyzerName  = "novelapi_ident"
)

func init() {
	if err := registry.RegisterTokenizer(identTokenizerName, func(map[string]any, *registry.Cache) (analysis.Tokenizer, error) {
		return identTokenizer{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterTokenFilter(identFilterName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return identFilter{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterAnalyzer(identAnalyzerName, identAnalyzerConstructor); err != nil {
		panic(err)
	}
}

// identAnalyzerConstructor builds the analyzer used for every text field:
// identifier-aware tokenizer, identifier splitting (keeping the whole
// identifier as a keyword token), English stop words and porter stemming of
// the parts (whole identifiers are marked KeyWord and are not stemmed).
func identAnalyzerConstructor(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
	stop, err := cache.TokenFilterNamed(en.StopName)
	if err != nil {
		return nil, err
	}
	stem, err := cache.TokenFilterNamed(porter.Name)
	if err != nil {
		return nil, err
	}
	return &analysis.DefaultAnalyzer{
		Tokenizer:    identTokenizer{},
		TokenFilters: []analysis.TokenFilter{identFilter{}, stop, stem},
	}, nil
}

// newIdentAnalyzer returns a standalone instance of the identifier analyzer,
// used by the hashing embedder so that both legs see the same terms.
func newIdentAnalyzer() analysis.Analyzer {
	a, err := registry.NewCache().AnalyzerNamed(identAnalyzerName)
	if err != nil {
		panic(err) // registered in init; cannot fail
	}
	return a
}

// isIdentRune reports whether r can be part of an identifier word.
func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// identTokenizer emits maximal runs of identifier characters, joined by
// single dots when a dot sits between two identifier characters, so that
// "np.linalg.matrix_norm(x)." yields "np.linalg.matrix_norm" and "x".
type identTokenizer struct{}

func (identTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos := 1
	i := 0
	for i < len(input) {
		r, w := utf8.DecodeRune(input[i:])
		if !isIdentRune(r) {
			i += w
			continue
		}
		start := i
		end := i
		for i < len(input) {
			r, w = utf8.DecodeRune(input[i:])
			if isIdentRune(r) {
				i += w
				end = i
				continue
			}
			if r == '.' && i+1 < len(input) {
				r2, _ := utf8.DecodeRune(input[i+1:])
				if isIdentRune(r2) {
					i += w
					continue
				}
			}
			break
		}
		out = append(out, &analysis.Token{Term: input[start:end], Start: start, End: end, Position: pos, Type: analysis.AlphaNumeric})
		pos++
	}
	return out
}

// identFilter lowercases tokens and splits compound identifiers. For a token
// such as "pd.Series.case_when" it emits the whole lowercased identifier
// (KeyWord, so it is not stemmed), every dotted segment that is itself
// compound ("case_when"), and the sub-words split on dots, underscores,
// camelCase and letter/digit boundaries ("pd", "series", "case", "when").
type identFilter struct{}

func (identFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input)*2)
	for _, tok := range input {
		parts := splitIdent(string(tok.Term))
		whole := lower(string(tok.Term))
		if len(parts) <= 1 {
			tok.Term = []byte(whole)
			out = append(out, tok)
			continue
		}
		out = append(out, &analysis.Token{Term: []byte(whole), Start: tok.Start, End: tok.End, Position: tok.Position, Type: tok.Type, KeyWord: true})
		for _, seg := range compoundSegments(string(tok.Term)) {
			out = append(out, &analysis.Token{Term: []byte(lower(seg)), Start: tok.Start, End: tok.End, Position: tok.Position, Type: tok.Type, KeyWord: true})
		}
		for _, p := range parts {
			out = append(out, &analysis.Token{Term: []byte(lower(p)), Start: tok.Start, End: tok.End, Position: tok.Position, Type: tok.Type})
		}
	}
	return out
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return toLowerSlow(s)
		}
	}
	return s
}

func toLowerSlow(s string) string {
	b := make([]rune, 0, len(s))
	for _, r := range s {
		b = append(b, unicode.ToLower(r))
	}
	return string(b)
}

// compoundSegments returns the dotted segments of a dotted identifier that
// are themselves compound (contain '_' or a camelCase boundary), e.g.
// "np.cumulative_sum" → ["cumulative_sum"]; for a dotted name it also returns
// the trailing "Class.method" pair ("Series.case_when").
func compoundSegments(s string) []string {
	segs := strings.FieldsFunc(s, func(r rune) bool { return r == '.' })
	if len(segs) < 2 {
		return nil
	}
	var out []string
	for _, seg := range segs {
		if len(splitIdent(seg)) > 1 {
			out = append(out, seg)
		}
	}
	if len(segs) >= 3 {
		out = append(out, segs[len(segs)-2]+"."+segs[len(segs)-1])
	}
	return out
}

// splitIdent splits an identifier into sub-words on dots, underscores,
// lower→upper case changes ("caseWhen"), acronym ends ("HTTPServer" →
// "HTTP", "Server") and letter/digit boundaries ("float64" → "float", "64").
func splitIdent(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, string(rs[start:end]))
		}
		start = -1
	}
	for i, r := range rs {
		if r == '_' || r == '.' || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}
