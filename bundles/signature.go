package bundles

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/novelapi/novelapi/internal/pysyntax"
)

// Parameter kinds, as Python's inspect.Parameter.kind names them (the Kind
// of ParamInfo).
const (
	KindPositionalOnly = "POSITIONAL_ONLY"
	KindPositionalOrKw = "POSITIONAL_OR_KEYWORD"
	KindVarPositional  = "VAR_POSITIONAL"
	KindKeywordOnly    = "KEYWORD_ONLY"
	KindVarKeyword     = "VAR_KEYWORD"
)

// A SignatureDiff is what the signature of a signature-modified API changed
// between the old release and the new one: the change summary that
// docs/protocol.md §7 Stage 3 gives the task writer for modified APIs ("added or
// removed params, changed defaults; every task must exercise the change"),
// over the parameters that make an API modified in §7 Stage 1 (after
// dropping self and cls and ignoring annotations: a parameter's name, kind
// or default changed, or the count did).
//
// Each list holds parameter names in the order of the signature they come
// from (the new one, Removed the old one). A name is in at most one of
// Added and Removed and in neither when it is in DefaultChanged, KindChanged
// or Moved; one parameter may be in several of the last three. The zero
// SignatureDiff changes nothing.
type SignatureDiff struct {
	// Added are parameters of the new signature the old one lacks
	// (a renamed parameter is one added and one removed).
	Added []string
	// DefaultChanged are parameters whose default differs, including
	// gaining or losing one. Defaults are compared after the §7 Stage 1
	// normalisation (addresses, environment paths), and str() of the old
	// default matches repr() of the new one ("C" matches "'C'").
	DefaultChanged []string
	// KindChanged are parameters whose kind changed, e.g.
	// POSITIONAL_OR_KEYWORD to KEYWORD_ONLY.
	KindChanged []string
	// Moved are parameters that can be passed positionally in both
	// signatures but at different positions, e.g. after a parameter was
	// inserted before them.
	Moved []string
	// Removed are parameters of the old signature the new one lacks. No call
	// to the new release can pass them, so they never make a call exercise
	// the change.
	Removed []string

	// New and Old are the two signatures' parameters without self and cls.
	New, Old []ParamInfo
}

// droppedFromS reports whether extraction leaves p out of S_param
// (docs/protocol.md §7 Stage 2 "S": self, cls, args and kwargs are dropped;
// bundles/py/extract.py also drops **kwds).
func droppedFromS(p ParamInfo) bool {
	switch p.Name {
	case "self", "cls", "args", "kwargs":
		return true
	}
	return p.Kind == KindVarKeyword && p.Name == "kwds"
}

// DiffSignature returns what the signature of b changed (see [SignatureDiff]);
// ok is false when b is not signature-modified or either signature is
// unknown.
//
// The old signature is b.OldParameters, else b.OldSignature parsed. The new
// one is the live signature novelapi records in Provenance.Signature
// ("(x, /, *, axis=0)"). Bundles without it (the published format) fall
// back to S_param, which has no kinds and leaves out self, cls, args and
// kwargs: a parameter then keeps its old kind (new ones are taken as
// positional-or-keyword), so kind changes go undetected, and parameters
// named args or kwargs are left out of both sides.
func DiffSignature(b *Bundle) (c SignatureDiff, ok bool) {
	if !b.IsModified {
		return SignatureDiff{}, false
	}
	old := b.OldParameters
	if len(old) == 0 && b.OldSignature != nil {
		old, _ = ParseSignature(*b.OldSignature)
	}
	if len(old) == 0 { // §7 Stage 1: an old entry with no parameters is never changed
		return SignatureDiff{}, false
	}
	old = dropSelf(old)
	var cur []ParamInfo
	if b.Provenance != nil && b.Provenance.Signature != "" {
		if cur, ok = ParseSignature(b.Provenance.Signature); !ok {
			return SignatureDiff{}, false
		}
		cur = dropSelf(cur)
	} else {
		if len(b.SParam) == 0 {
			return SignatureDiff{}, false
		}
		old = slices.DeleteFunc(slices.Clone(old), droppedFromS)
		kinds := map[string]string{}
		for _, p := range old {
			kinds[p.Name] = p.Kind
		}
		for _, p := range b.SParam {
			k := kinds[p.Name]
			if k == "" {
				k = KindPositionalOrKw
			}
			cur = append(cur, ParamInfo{Name: p.Name, Default: p.Default, Kind: k})
		}
	}
	c.New, c.Old = cur, old
	oldByName := map[string]ParamInfo{}
	for _, p := range old {
		oldByName[p.Name] = p
	}
	oldPos, newPos := PositionalNames(old), PositionalNames(cur)
	curNames := map[string]bool{}
	for _, p := range cur {
		curNames[p.Name] = true
		o, found := oldByName[p.Name]
		if !found {
			c.Added = append(c.Added, p.Name)
			continue
		}
		if !SameDefault(o.Default, p.Default) {
			c.DefaultChanged = append(c.DefaultChanged, p.Name)
		}
		if o.Kind != p.Kind {
			c.KindChanged = append(c.KindChanged, p.Name)
		}
		if i, j := slices.Index(oldPos, p.Name), slices.Index(newPos, p.Name); i >= 0 && j >= 0 && i != j {
			c.Moved = append(c.Moved, p.Name)
		}
	}
	for _, p := range old {
		if !curNames[p.Name] {
			c.Removed = append(c.Removed, p.Name)
		}
	}
	return c, true
}

// PositionalNames returns the names of the parameters that can be passed
// positionally, in order.
func PositionalNames(ps []ParamInfo) []string {
	var out []string
	for _, p := range ps {
		if p.Kind == KindPositionalOnly || p.Kind == KindPositionalOrKw {
			out = append(out, p.Name)
		}
	}
	return out
}

// ParseSignature reads str(inspect.signature(obj)) text, "(x, /, *,
// axis: int = 0, **kw) -> T", into parameters with kinds; defaults keep
// their text (a repr), annotations are dropped. ok is false when the text
// does not open with a balanced parameter list.
func ParseSignature(sig string) (ps []ParamInfo, ok bool) {
	s := strings.TrimSpace(sig)
	if !strings.HasPrefix(s, "(") {
		return nil, false
	}
	end := pysyntax.MatchBracket(s, 0)
	if end < 0 {
		return nil, false
	}
	ps = []ParamInfo{}
	if strings.TrimSpace(s[1:end]) == "" {
		return ps, true
	}
	kind := KindPositionalOrKw
	for _, part := range pysyntax.SplitTopLevel(s[1:end]) {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			continue
		case part == "/":
			for i := range ps {
				if ps[i].Kind == KindPositionalOrKw {
					ps[i].Kind = KindPositionalOnly
				}
			}
			continue
		case part == "*":
			kind = KindKeywordOnly
			continue
		}
		head, def, hasDef := pysyntax.CutTopLevel(part, '=')
		name, _, _ := pysyntax.CutTopLevel(head, ':')
		name = strings.TrimSpace(name)
		p := ParamInfo{Name: name, Kind: kind}
		switch {
		case strings.HasPrefix(name, "**"):
			p.Name, p.Kind = name[2:], KindVarKeyword
		case strings.HasPrefix(name, "*"):
			p.Name, p.Kind = name[1:], KindVarPositional
			kind = KindKeywordOnly
		}
		if hasDef {
			d := strings.TrimSpace(def)
			p.Default = &d
		}
		ps = append(ps, p)
	}
	return ps, true
}

var (
	// repr of a NumPy 2 scalar, "np.float64(1.0)", whose str is "1.0".
	npScalarRE = regexp.MustCompile(`^np\.[a-z_0-9]+\((.*)\)$`)
	// repr of an Enum member, "<Color.RED: 1>", whose str is "Color.RED".
	enumReprRE = regexp.MustCompile(`^<([\w.]+): .*>$`)
)

// SameDefault reports whether two defaults are the same after
// normalisation. Old parameters hold str(default) and signatures
// repr(default), so a value's repr also matches its str: a string literal
// its text, a NumPy scalar ("np.int64(0)") its number, an Enum member
// ("<Color.RED: 1>") "Color.RED", and a sentinel whose repr is "<name>"
// (pandas' "<no_default>") a str ending in ".name" ("_NoDefault.no_default").
func SameDefault(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	x, y := normDefault(a), normDefault(b) // as Diff normalises defaults (§7 Stage 1)
	return x == y || reprOf(x, y) || reprOf(y, x)
}

// reprOf reports whether r can be the repr of a value whose str is s
// (see SameDefault).
func reprOf(r, s string) bool {
	n := len(r)
	if n < 2 {
		return false
	}
	if (r[0] == '\'' || r[0] == '"') && r[n-1] == r[0] {
		return r[1:n-1] == s
	}
	if m := npScalarRE.FindStringSubmatch(r); m != nil {
		return m[1] == s
	}
	if m := enumReprRE.FindStringSubmatch(r); m != nil {
		return m[1] == s
	}
	if r[0] == '<' && r[n-1] == '>' && !strings.ContainsAny(r[1:n-1], " <>") {
		return strings.HasSuffix(s, "."+r[1:n-1])
	}
	return false
}

// Describe says in a few words each how the parameters changed, for a
// reader who wrote code for the old release: parameters removed, added
// (with their default), whose default changed, whose kind changed (grouped
// by kind: "axis, dtype became keyword-only") and that moved position.
// Empty when only annotations or the return changed.
func (d SignatureDiff) Describe() []string {
	byName := func(ps []ParamInfo) map[string]ParamInfo {
		m := map[string]ParamInfo{}
		for _, p := range ps {
			m[p.Name] = p
		}
		return m
	}
	oldBy, newBy := byName(d.Old), byName(d.New)
	var out []string
	if len(d.Removed) > 0 {
		var ns []string
		for _, n := range d.Removed {
			ns = append(ns, displayParam(oldBy[n], false))
		}
		out = append(out, "removed "+strings.Join(ns, ", "))
	}
	if len(d.Added) > 0 {
		var ns []string
		for _, n := range d.Added {
			ns = append(ns, displayParam(newBy[n], true))
		}
		out = append(out, "added "+strings.Join(ns, ", "))
	}
	for _, n := range d.DefaultChanged {
		o, p := oldBy[n].Default, newBy[n].Default
		switch {
		case o == nil && p != nil:
			out = append(out, fmt.Sprintf("%s now defaults to %s", n, showDefault(*p)))
		case o != nil && p == nil:
			out = append(out, fmt.Sprintf("%s is now required (was %s)", n, showDefault(*o)))
		case o != nil:
			out = append(out, fmt.Sprintf("%s default %s → %s", n, showDefault(*o), showDefault(*p)))
		}
	}
	var kinds []string
	became := map[string][]string{} // new kind → parameters that became it
	for _, n := range d.KindChanged {
		k := newBy[n].Kind
		if became[k] == nil {
			kinds = append(kinds, k)
		}
		became[k] = append(became[k], n)
	}
	for _, k := range kinds {
		out = append(out, fmt.Sprintf("%s became %s", strings.Join(became[k], ", "), kindWords(k)))
	}
	if len(d.Moved) > 0 {
		out = append(out, strings.Join(d.Moved, ", ")+" moved position")
	}
	return out
}

// SignatureChanges returns the [SignatureDiff.Describe] lines of b's
// signature change ([DiffSignature]); nil for a new API or when either
// signature is unknown.
func (b *Bundle) SignatureChanges() []string {
	d, ok := DiffSignature(b)
	if !ok {
		return nil
	}
	return d.Describe()
}

// displayParam writes p as it appears in a signature: *args, **kwargs,
// name=default (with withDefault) or name.
func displayParam(p ParamInfo, withDefault bool) string {
	switch p.Kind {
	case KindVarPositional:
		return "*" + p.Name
	case KindVarKeyword:
		return "**" + p.Name
	}
	if withDefault && p.Default != nil {
		return p.Name + "=" + showDefault(*p.Default)
	}
	return p.Name
}

// showDefault writes a default for one header line: old_parameters hold
// str(default), which may be a raw newline or tab; such a default is
// quoted with its escapes.
func showDefault(s string) string {
	if strings.ContainsFunc(s, unicode.IsControl) {
		return strconv.Quote(s)
	}
	return s
}

func kindWords(kind string) string {
	switch kind {
	case KindPositionalOnly:
		return "positional-only"
	case KindKeywordOnly:
		return "keyword-only"
	case KindPositionalOrKw:
		return "positional-or-keyword"
	case KindVarPositional:
		return "*args"
	case KindVarKeyword:
		return "**kwargs"
	}
	return strings.ToLower(kind)
}
