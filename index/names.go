package index

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/novelapi/novelapi/bundles"
)

// nameTable resolves identifiers written in a query to API keys.
type nameTable struct {
	full   map[string][]string // lowercased qualified name or alias → keys
	suffix map[string][]string // lowercased dotted suffix ("series.case_when", "case_when") → keys
	// libraries holds the first segments of the names (lowercased
	// library names: "numpy", "pandas").
	libraries map[string]bool
	// instance maps the lowercased names of public instances
	// ("scipy.stats.cauchy") and their dotted suffixes of two or more
	// segments ("stats.cauchy") to the keys of their classes, so that an
	// attribute of one ("scipy.stats.cauchy.fit", inherited and not an API
	// of its own) names the class.
	instance map[string][]string
	// soleLeaf maps the lowercased last segment of an instance's name
	// ("norm", "t", "f") to its class's keys. Such leaves are common words
	// and names in code ("f(x)", "norm(v)"), so they name the class only
	// when they are the whole query.
	soleLeaf map[string][]string
	// aliases are the lowercased import aliases the bundles' examples use
	// ("np" → "numpy", bundles.LearnAliases), so "np.unstack" names
	// numpy.unstack.
	aliases bundles.Aliases
}

// learnAliases sets the table's import aliases from the examples of bs.
func (t *nameTable) learnAliases(bs []bundles.Bundle) {
	t.aliases = bundles.Aliases{}
	for a, m := range bundles.LearnAliases(bundles.ExampleCode(bs)) {
		t.aliases[strings.ToLower(a)] = strings.ToLower(m)
	}
}

func newNameTable() *nameTable {
	return &nameTable{full: map[string][]string{}, suffix: map[string][]string{}, libraries: map[string]bool{},
		instance: map[string][]string{}, soleLeaf: map[string][]string{}}
}

// addInstances records the names of the public instances of the class at
// key: whole and as dotted suffixes of two or more segments
// ("scipy.stats.norm", "stats.norm") as names of the API, the last segment
// ("norm") only as a whole query (soleLeaf), and, for a class, the same
// dotted names as receivers whose attributes name it (lookup). For a
// method (scipy.stats.irwinhall.fit) the receiver names the class's own
// bundle, not the method's.
func (t *nameTable) addInstances(key string, names []string, method bool) {
	for _, n := range names {
		ln := strings.ToLower(n)
		t.full[ln] = appendUnique(t.full[ln], key)
		segs := strings.Split(ln, ".")
		t.libraries[segs[0]] = true
		leaf := segs[len(segs)-1]
		t.soleLeaf[leaf] = appendUnique(t.soleLeaf[leaf], key)
		for i := 0; i+2 <= len(segs); i++ { // the name and its dotted suffixes
			s := strings.Join(segs[i:], ".")
			if i > 0 {
				t.suffix[s] = appendUnique(t.suffix[s], key)
			}
			if !method {
				t.instance[s] = appendUnique(t.instance[s], key)
			}
		}
	}
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// add records the names of the API at key: each whole and its dotted
// suffixes.
func (t *nameTable) add(key string, names []string) {
	for _, n := range names {
		t.addName(key, n, 1)
	}
}

// addNames records the qualified name and aliases of the API at key
// (bundles.Bundle.Names, qualified name first) as add does, except that
// an alias whose last segment is not the qualified name's gets no bare
// leaf: such an alias is another binding of the object
// ("sklearn.linear_model.Lasso.path" for enet_path, a module's variable
// "django.db.models.expressions.result" for DurationField), and its leaf
// is a common word in questions ("store the outcome in `result`"). It
// still names the API whole and as a suffix of two or more segments
// ("Lasso.path").
func (t *nameTable) addNames(key string, names []string) {
	for i, n := range names {
		minSegs := 1
		if i > 0 && leafOf(n) != leafOf(names[0]) {
			minSegs = 2
		}
		t.addName(key, n, minSegs)
	}
}

// addName records name whole and its dotted suffixes of at least minSegs
// segments.
func (t *nameTable) addName(key, name string, minSegs int) {
	ln := strings.ToLower(name)
	t.full[ln] = appendUnique(t.full[ln], key)
	segs := strings.Split(ln, ".")
	t.libraries[segs[0]] = true
	for i := 1; i <= len(segs)-minSegs; i++ {
		s := strings.Join(segs[i:], ".")
		t.suffix[s] = appendUnique(t.suffix[s], key)
	}
}

// leafOf returns the last dotted segment of name.
func leafOf(name string) string { return name[strings.LastIndexByte(name, '.')+1:] }

// addFull records name as a qualified name of the API at key, without its
// suffixes: a defining-module path ("numpy._core.shape_base.unstack")
// names its API only whole.
func (t *nameTable) addFull(key, name string) {
	ln := strings.ToLower(name)
	t.full[ln] = appendUnique(t.full[ln], key)
}

// definingName returns the path of b's API in the module that defines it,
// from its source file ("<dist-packages>/numpy/_core/shape_base.py" and
// numpy.unstack → "numpy._core.shape_base.unstack"; a method keeps its
// class: "pandas.core.series.Series.case_when"), or "" when b records no
// source file under its library or the path is one of its names already.
// Users meet it in reprs, tracebacks and implementation-level docs.
func definingName(b *bundles.Bundle) string {
	if b.Provenance == nil || b.Provenance.SourceFile == "" {
		return ""
	}
	file := b.Provenance.SourceFile
	if i := strings.Index(file, ">/"); strings.HasPrefix(file, "<") && i >= 0 {
		file = file[i+2:]
	}
	mod, ok := strings.CutSuffix(file, ".py")
	if !ok {
		return ""
	}
	mod = strings.TrimSuffix(strings.ReplaceAll(mod, "/", "."), ".__init__")
	if lib, _, _ := strings.Cut(mod, "."); lib != bundles.TopLevel(b.APIName) {
		return ""
	}
	segs := strings.Split(b.APIName, ".")
	n := 1
	if b.Provenance.Kind == "method" && len(segs) >= 3 {
		n = 2
	}
	name := mod + "." + strings.Join(segs[len(segs)-n:], ".")
	if slices.Contains(b.Names(), name) {
		return ""
	}
	return name
}

// IdentShaped reports whether a query token is written like a code
// identifier rather than an English word: it has a dot or underscore, a
// lower-to-upper case change, or is followed by "(" (after) or wrapped in
// backticks (before, the byte before it). The exact-name rule and the MCP
// server's note on unknown names both read names this way.
func IdentShaped(tok string, before, after byte) bool {
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

// pythonBuiltins are names a bare call in a query most likely means as the
// Python builtin ("len(", "map(", "sum(") rather than an API leaf.
var pythonBuiltins = map[string]bool{
	"abs": true, "all": true, "any": true, "bool": true, "dict": true, "divmod": true, "enumerate": true,
	"filter": true, "float": true, "format": true, "int": true, "isinstance": true, "iter": true, "len": true,
	"list": true, "map": true, "max": true, "min": true, "next": true, "pow": true, "print": true, "range": true,
	"repr": true, "reversed": true, "round": true, "set": true, "slice": true, "sorted": true, "str": true,
	"sum": true, "tuple": true, "type": true, "zip": true,
}

// definedNames returns the lowercased names the query itself defines: a
// signature right after "def" or "class", or after "a function" / "an
// function" ("Write a function `solve(df)`", "def solve(x):"). They are the
// user's own code, not APIs; "the function cumsum(" still names one.
func definedNames(toks analysis.TokenStream, query string) map[string]bool {
	defined := map[string]bool{}
	for i := 1; i < len(toks); i++ {
		if toks[i].End >= len(query) || query[toks[i].End] != '(' {
			continue
		}
		if gap := query[toks[i-1].End:toks[i].Start]; strings.Trim(gap, " `") != "" {
			continue
		}
		switch strings.ToLower(string(toks[i-1].Term)) {
		case "def", "class":
		case "function":
			if i < 2 || !slices.Contains([]string{"a", "an"}, strings.ToLower(string(toks[i-2].Term))) {
				continue
			}
		default:
			continue
		}
		defined[strings.ToLower(string(toks[i].Term))] = true
	}
	return defined
}

// lookup returns the keys of the APIs that query names exactly, in query
// order: a qualified name or alias anywhere in the query; a dotted suffix
// ("Series.case_when", "np.linalg.matrix_norm" → "linalg.matrix_norm") or a
// leaf written like an identifier ("read_csv", "cumulative_sum(") ; or a
// leaf when the whole query is that one word.
//
// Three kinds of identifier name no API: a name the query defines (see
// definedNames); a bare Python builtin ("len("); and the leaf of a path
// that starts with a library ("numpy.fft" is a module, not numpy.fft.fft):
// such a path matches only whole or as a suffix of two or more segments.
//
// Nor does a method called on a receiver the table does not know
// ("df.groupby(", "ser.expanding()"): the receiver's type is unknown, and
// such a call is usually the context of the question (the object whose
// method is asked for); the legs still see its words.
//
// Nor, in a query of several words, do the names that are arguments or
// types of what the question is about (see argumentName): names inside a
// call's parentheses or a subscript's brackets, keyword names and keyword values, the type in "a
// `pandas.Series` object", and a bare word (no dot, no underscore) as a
// method: "`copy` (left at its default)" is a parameter, "`rvs`" a
// variable.
func (t *nameTable) lookup(query string) []string {
	query = attributeErrorNames(query)
	toks := identTokenizer{}.Tokenize([]byte(query))
	defined := definedNames(toks, query)
	inCall := callArguments(query)
	var keys []string
	add := func(ks []string) {
		for _, k := range ks {
			keys = appendUnique(keys, k)
		}
	}
	single := len(toks) == 1
	for _, tok := range toks {
		s := strings.ToLower(string(tok.Term))
		s = t.aliases.Expand(s)
		if !single && argumentName(query, tok.Start, tok.End, inCall) {
			continue
		}
		if ks, ok := t.full[s]; ok {
			add(ks)
			continue
		}
		if defined[s] || (!single && pythonBuiltins[s]) {
			continue
		}
		var before, after byte
		if tok.Start > 0 {
			before = query[tok.Start-1]
		}
		if tok.End < len(query) {
			after = query[tok.End]
		}
		if !single && !IdentShaped(string(tok.Term), before, after) {
			continue
		}
		minSegs := 1
		first, _, dotted := strings.Cut(s, ".")
		if dotted && t.libraries[first] {
			minSegs = 2
		}
		// A bare word in a longer query ("unique() got an unexpected
		// keyword", "`copy` (left at its default)") means a function, a
		// parameter or a variable, not the one method of that name the
		// index happens to hold (SeriesGroupBy.unique, MultiIndex.copy).
		bareCall := !single && !dotted && !strings.Contains(s, "_")
		found := len(keys)
		for cand := s; cand != "" && strings.Count(cand, ".")+1 >= minSegs; {
			if ks, ok := t.suffix[cand]; ok {
				if cand == s || t.libraries[first] { // not an unknown receiver
					for _, k := range ks {
						// A path that starts with a library names that
						// library's API: scipy.linalg.svdvals is not
						// numpy.linalg.svdvals.
						if dotted && t.libraries[first] && strings.ToLower(bundles.TopLevel(k)) != first {
							continue
						}
						if bareCall && isMethodKey(k) {
							continue
						}
						keys = appendUnique(keys, k)
					}
				}
				break
			}
			i := strings.IndexByte(cand, '.')
			if i < 0 {
				break
			}
			cand = cand[i+1:]
		}
		if single {
			// A public instance's leaf ("triang", "loguniform") as the
			// whole query.
			add(t.soleLeaf[s])
		}
		if dotted && len(keys) == found {
			// An attribute of a public instance ("scipy.stats.cauchy.fit",
			// "sp.stats.triang.pdf") names the instance's class.
			for p := s; strings.Count(p, ".") >= 2; {
				p = p[:strings.LastIndexByte(p, '.')]
				if ks, ok := t.instance[p]; ok {
					add(ks)
					break
				}
			}
		}
	}
	return keys
}

// callArguments marks the bytes of query that are arguments: inside the
// parentheses of a call or signature ("solve(df, rvs)", "np.ones((3,
// 3))") or the brackets of a subscript ("Annotated[int, Field(gt=4)]",
// "x[np.newaxis]"), where an opening parenthesis or bracket right after
// an identifier character opens one and its matching closer (or the end
// of the query) closes it; and inside a code span that holds a
// comma-separated list.
func callArguments(query string) []bool {
	in := make([]bool, len(query))
	var stack []bool // per open parenthesis or bracket: whether it opened a call or subscript
	calls := 0
	for i := 0; i < len(query); i++ {
		switch c := query[i]; c {
		case '(', '[':
			call := i > 0 && (isIdentByte(query[i-1]) || (query[i-1] == ')' || query[i-1] == ']') && calls > 0)
			stack = append(stack, call)
			if call {
				calls++
			}
		case ')', ']':
			if n := len(stack); n > 0 {
				if stack[n-1] {
					calls--
				}
				stack = stack[:n-1]
			}
		}
		in[i] = calls > 0
	}
	// A code span holding a list at its top level ("`stats.Normal(), lb,
	// ub`") is a list of arguments, not a call.
	for i := 0; i < len(query); {
		open := strings.IndexByte(query[i:], '`')
		if open < 0 {
			break
		}
		open += i
		end := strings.IndexByte(query[open+1:], '`')
		if end < 0 {
			break
		}
		end += open + 1
		depth, list := 0, false
		for _, c := range query[open+1 : end] {
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			case ',':
				list = list || depth == 0
			}
		}
		if list {
			for j := open; j <= end; j++ {
				in[j] = true
			}
		}
		i = end + 1
	}
	return in
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// argumentName reports whether the identifier at query[start:end] is an
// argument or a type of what a longer query asks about rather than the
// API asked for: it is inside a call's parentheses (inCall, see
// callArguments), a keyword name ("axis=", not "=="), a keyword value
// written without spaces ("structure=np.ones"), or the type of an object
// ("a `pandas.Series` object").
func argumentName(query string, start, end int, inCall []bool) bool {
	if inCall[start] {
		return true
	}
	if end < len(query) && query[end] == '=' && (end+1 == len(query) || query[end+1] != '=') {
		return true
	}
	if start > 0 && query[start-1] == '=' && (start < 2 || !strings.ContainsRune("=!<> ", rune(query[start-2]))) {
		return true
	}
	rest := strings.TrimPrefix(query[end:], "`")
	return strings.HasPrefix(rest, " object")
}

// objectTypes returns the keys of the APIs that query names as the type of
// an object it holds ("Call the appropriate method of `Tf` (a
// `scipy.spatial.transform.RigidTransform` object)"; argumentName): the
// class whose method is asked for, not the API asked for. Names resolve
// whole or as a dotted suffix, as in lookup.
func (t *nameTable) objectTypes(query string) []string {
	var keys []string
	for _, tok := range (identTokenizer{}).Tokenize([]byte(query)) {
		if !strings.HasPrefix(strings.TrimPrefix(query[tok.End:], "`"), " object") {
			continue
		}
		s := t.aliases.Expand(strings.ToLower(string(tok.Term)))
		ks, ok := t.full[s]
		if !ok {
			ks = t.suffix[s]
		}
		for _, k := range ks {
			keys = appendUnique(keys, k)
		}
	}
	return keys
}

// ownerOf returns the API name of the class of the method at key ("" for
// an API that is no method; isMethodKey).
func ownerOf(key string) string {
	if !isMethodKey(key) {
		return ""
	}
	api, _, _ := strings.Cut(key, "@")
	return api[:strings.LastIndexByte(api, '.')]
}

// calledIn reports whether code calls leaf: leaf followed by "(" and not
// preceded by an identifier character ("R.from_davenport(", "inv(A)").
func calledIn(code, leaf string) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], leaf+"(")
		if j < 0 {
			return false
		}
		j += i
		if j == 0 || !isIdentByte(code[j-1]) {
			return true
		}
		i = j + 1
	}
}

// isMethodKey reports whether the API at key is a method: the segment
// before its leaf is a class name (starts with an upper-case letter).
func isMethodKey(key string) bool {
	api, _, _ := strings.Cut(key, "@")
	segs := strings.Split(api, ".")
	if len(segs) < 3 {
		return false
	}
	owner := segs[len(segs)-2]
	return owner != "" && unicode.IsUpper(rune(owner[0]))
}

// attributeErrorRE matches Python's AttributeError messages: "module
// 'numpy' has no attribute 'trapz'" and "'DataFrame' object has no
// attribute 'applymap'".
var attributeErrorRE = regexp.MustCompile(`(?:module '([\w.]+)'|'(\w+)' object) has no attribute '(\w+)'`)

// attributeErrorNames appends to query, for each AttributeError message in
// it, the dotted name it is about ("numpy.trapz", "DataFrame.applymap"),
// so that the exact-name rule reads a pasted error like the name itself.
func attributeErrorNames(query string) string {
	ms := attributeErrorRE.FindAllStringSubmatch(query, -1)
	for _, m := range ms {
		owner := m[1]
		if owner == "" {
			owner = m[2]
		}
		query += " " + owner + "." + m[3]
	}
	return query
}
