package bundles

import (
	"regexp"
	"slices"
	"strings"
)

// A NoteReplacement is what one release-note entry says of an API that
// is deprecated, renamed, moved or removed in favour of another: Old the
// name it retires and New the name to use instead, as the entry writes
// them (markup, a leading "~" or "." and a trailing "()" removed;
// "np.trapz" stays "np.trapz"), and the entry.
type NoteReplacement struct {
	Old, New string
	Note     ReleaseNote
}

// Replacements returns what d's release notes say replaces what, in the
// order of the notes (docs/protocol.md §7 Stage 2, "release notes"). An
// entry counts when a sentence of it has
//
//   - a subject of one or more names, written as code ("`np.trapz`",
//     ":meth:`DataFrame.applymap`", a rendered page's <code>), that opens
//     the sentence or follows "Deprecated" ("Deprecated `Styler.applymap()`.");
//     "The `m` method of `C`" names C.m;
//   - a verb that retires it: deprecated, renamed, removed, moved,
//     replaced, superseded;
//   - the names to use: "in favo(u)r of Y", "renamed (to) Y", "replaced
//     by Y", "superseded by Y", "moved to Y", "use (the new) Y", "implement
//     Y instead" or "Y should be used", in the same sentence or the next.
//
// Names followed by "keyword", "argument", "parameter", "option" or
// "setting" are parameters or settings, not APIs, and make the sentence
// count for nothing, as do names that are not dotted identifiers
// ("CharField(db_collation=...)", "'trapz'"). Several old names pair with
// as many new ones in order, or all with one; one old name pairs with each
// of several new ones. Nil for a nil d.
func (d *Docs) Replacements() []NoteReplacement {
	if d == nil {
		return nil
	}
	var out []NoteReplacement
	for _, n := range d.notes {
		text := n.marked
		if text == "" {
			text = n.Text
		}
		if !retireWordRE.MatchString(text) {
			continue
		}
		note := n
		note.Text, note.marked = CleanMarkup(n.Text), ""
		for _, p := range notePairs(text) {
			out = append(out, NoteReplacement{Old: p[0], New: p[1], Note: note})
		}
	}
	return out
}

// retireWordRE is a cheap test for an entry that may retire an API.
var retireWordRE = regexp.MustCompile(`(?i)deprecat|renamed|removed|moved|replaced|superseded`)

// A noteTok is one token of a release-note entry: a code span (name set,
// the span's text) or a word or punctuation mark (word set, lowercased).
type noteTok struct {
	code bool
	text string
}

var (
	// codeSpanRE matches an inline code span with an optional Sphinx role:
	// "``x``", "`x`", ":meth:`~pandas.DataFrame.map`", ":func:`text <target>`".
	codeSpanRE = regexp.MustCompile("(?::[\\w:.-]+:)?(`+)([^`]+?)(`+)_{0,2}")
	// noteWordRE matches a word or a punctuation mark of the prose.
	noteWordRE = regexp.MustCompile(`[\w'’-]+|[.,;:()—/]`)
	// dottedNameRE matches a dotted identifier, braces allowed in its last
	// part ("scipy.integrate.{simps,trapz}").
	dottedNameRE = regexp.MustCompile(`^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\.\{[\w, ]+\})?$`)
)

// noteTokens splits marked text into tokens.
func noteTokens(text string) []noteTok {
	text = mdLinkRE.ReplaceAllString(text, "$1")
	var out []noteTok
	words := func(s string) {
		for _, w := range noteWordRE.FindAllString(s, -1) {
			out = append(out, noteTok{text: strings.ToLower(w)})
		}
	}
	last := 0
	for _, m := range codeSpanRE.FindAllStringSubmatchIndex(text, -1) {
		words(text[last:m[0]])
		last = m[1]
		if m[3]-m[2] != m[7]-m[6] {
			words(text[m[0]:m[1]])
			continue
		}
		span := text[m[4]:m[5]]
		if i := strings.LastIndexByte(span, '<'); i >= 0 && strings.HasSuffix(span, ">") {
			span = span[i+1 : len(span)-1] // "text <target>"
		}
		span = strings.TrimLeft(strings.TrimSpace(span), "~!.")
		span = strings.TrimSuffix(span, "()")
		out = append(out, noteTok{code: true, text: span})
	}
	words(text[last:])
	return out
}

// noteSentences splits tokens at "." and ";".
func noteSentences(toks []noteTok) [][]noteTok {
	var out [][]noteTok
	start := 0
	for i, t := range toks {
		if !t.code && (t.text == "." || t.text == ";") {
			if i > start {
				out = append(out, toks[start:i])
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

var (
	// leadWords may come before a subject ("The undocumented `X` function").
	leadWords = wordSet("the a an alias aliases undocumented private public experimental function functions class classes method methods module submodule attribute property")
	// apiNouns may follow a subject's names ("`X` function is deprecated").
	apiNouns = wordSet("function functions method methods class classes module submodule submodules alias aliases attribute attributes property properties metaclass decorator object objects type types constant constants exception exceptions")
	// paramNouns after a name make it a parameter or a setting.
	paramNouns = wordSet("keyword keywords argument arguments parameter parameters kwarg kwargs option options setting settings flag flags field fields")
	// auxWords may stand between a subject and its verb.
	auxWords = wordSet("is are was were has have had been be will now also being officially — - :")
	// retireVerbs retire the subject.
	retireVerbs = wordSet("deprecated renamed removed moved replaced superseded")
	// listWords join the names of a list.
	listWords = wordSet(", and or /")
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// notePairs returns the (old, new) name pairs the sentences of marked
// text state (see [Docs.Replacements]).
func notePairs(text string) [][2]string {
	ss := noteSentences(noteTokens(text))
	var out [][2]string
	for i, s := range ss {
		olds, rest, ok := retired(s)
		if !ok {
			continue
		}
		news := replacementNames(rest)
		if news == nil && i+1 < len(ss) {
			news = replacementNames(ss[i+1])
		}
		switch {
		case len(news) == 0:
		case len(olds) == len(news) && pairwise(olds, news):
			for k := range olds {
				out = append(out, [2]string{olds[k], news[k]})
			}
		case len(news) == 1 || len(olds) == 1:
			for _, o := range olds {
				for _, n := range news {
					out = append(out, [2]string{o, n})
				}
			}
		}
	}
	var kept [][2]string
	for _, p := range out {
		if p[0] != p[1] && !slices.Contains(kept, p) {
			kept = append(kept, p)
		}
	}
	return kept
}

// pairwise reports whether the k-th of olds is replaced by the k-th of
// news, as in "`GeoModelAdmin` and `OSMGeoAdmin` are deprecated. Use
// `ModelAdmin` and `GISModelAdmin` instead": when olds name one owner (or
// none), or each new name has its old name's owner ("`DataFrame.swapaxes`
// and `Series.swapaxes` ... `DataFrame.transpose` or `Series.transpose`").
// Not so for "`DataFrameGroupBy.fillna` and `SeriesGroupBy.fillna`; use
// `DataFrameGroupBy.ffill`, `DataFrameGroupBy.bfill`", where both new
// names replace each old one.
func pairwise(olds, news []string) bool {
	owner := func(n string) string {
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			return n[:i]
		}
		return ""
	}
	one := ""
	same := true
	for _, o := range olds {
		switch w := owner(o); {
		case w == "":
		case one == "":
			one = w
		case w != one:
			same = false
		}
	}
	if same {
		return true
	}
	for k := range olds {
		if owner(olds[k]) != owner(news[k]) {
			return false
		}
	}
	return true
}

// retired returns the names a sentence's subject retires and the tokens
// after its verb.
func retired(s []noteTok) (olds []string, rest []noteTok, ok bool) {
	i := 0
	deprecatedFirst := false
	if len(s) > 0 && !s[0].code && (s[0].text == "deprecated" || s[0].text == "deprecating") {
		deprecatedFirst = true
		i++
	}
	for i < len(s) && !s[i].code && leadWords[s[i].text] {
		i++
	}
	names, j := nameList(s, i)
	if len(names) == 0 {
		return nil, nil, false
	}
	for j < len(s) && !s[j].code && apiNouns[s[j].text] {
		j++
	}
	if j < len(s) && !s[j].code && paramNouns[s[j].text] {
		return nil, nil, false
	}
	if j+1 < len(s) && !s[j].code && s[j].text == "of" {
		owners, k := nameList(s, j+1)
		if len(owners) == 0 {
			return nil, nil, false
		}
		var qual []string
		for _, o := range owners {
			for _, n := range names {
				qual = append(qual, o+"."+n)
			}
		}
		names, j = qual, k
	}
	if deprecatedFirst {
		// "Deprecated `X`, use `Y` instead", "Deprecated `X` in favor of `Y`"
		if j == len(s) || !s[j].code && (s[j].text == "," || s[j].text == "in") {
			return names, s[j:], true
		}
		return nil, nil, false
	}
	active := false // "`read_excel` has deprecated `sheetname`": the subject retires something else
	for j < len(s) && !s[j].code && auxWords[s[j].text] {
		switch s[j].text {
		case "has", "have", "had":
			active = true
		case "been":
			active = false
		}
		j++
	}
	if !active && j < len(s) && !s[j].code && retireVerbs[s[j].text] {
		return names, s[j:], true
	}
	return nil, nil, false
}

// nameList reads names joined by list words from s[i:]: the names and
// the index after them; none when s[i] is no name or a name is no
// dotted identifier.
func nameList(s []noteTok, i int) ([]string, int) {
	var names []string
	for i < len(s) && s[i].code {
		if !dottedNameRE.MatchString(s[i].text) {
			return nil, i
		}
		names = append(names, expandBraces(s[i].text)...)
		j := i + 1
		for j < len(s) && !s[j].code && listWords[s[j].text] {
			j++
		}
		if j == i+1 || j == len(s) || !s[j].code {
			return names, i + 1
		}
		i = j
	}
	return names, i
}

// expandBraces expands "a.{b,c}" to "a.b", "a.c".
func expandBraces(name string) []string {
	pre, list, ok := strings.Cut(name, "{")
	if !ok {
		return []string{name}
	}
	var out []string
	for _, p := range strings.Split(strings.TrimSuffix(list, "}"), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, pre+p)
		}
	}
	return out
}

// replacementNames returns the names a sentence gives to use instead:
// after "in favo(u)r of", "renamed (to|as)", "replaced by|with",
// "superseded by", "moved to", "use (the) (new)", "implement", or before
// "should be used". Nil when it gives none.
func replacementNames(s []noteTok) []string {
	for i := 0; i < len(s); i++ {
		if s[i].code {
			if i+3 < len(s) && s[i+1].text == "should" && s[i+2].text == "be" && s[i+3].text == "used" {
				if names := newNames(s, i); names != nil {
					return names
				}
			}
			continue
		}
		j := -1
		switch w := s[i].text; {
		case (w == "favor" || w == "favour") && i+1 < len(s) && s[i+1].text == "of":
			j = i + 2
		case w == "renamed" || w == "use" || w == "implement":
			j = i + 1
			if j < len(s) && (s[j].text == "to" || s[j].text == "as") && w == "renamed" {
				j++
			}
		case (w == "replaced" || w == "superseded") && i+1 < len(s) && (s[i+1].text == "by" || s[i+1].text == "with"):
			j = i + 2
		case w == "moved" && i+1 < len(s) && s[i+1].text == "to":
			j = i + 2
		}
		if j < 0 {
			continue
		}
		for j < len(s) && !s[j].code && (s[j].text == "the" || s[j].text == "new" || s[j].text == "its") {
			j++
		}
		if names := newNames(s, j); names != nil {
			return names
		}
	}
	return nil
}

// newNames reads the replacement names at s[i:], nil when there are none
// or they name parameters.
func newNames(s []noteTok, i int) []string {
	names, j := nameList(s, i)
	if len(names) == 0 {
		return nil
	}
	for j < len(s) && !s[j].code && apiNouns[s[j].text] {
		j++
	}
	if j < len(s) && !s[j].code && paramNouns[s[j].text] {
		return nil
	}
	return names
}
