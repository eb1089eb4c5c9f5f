package construct

import (
	"regexp"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/bundles"
)

// Parameter kinds, inspect.Parameter.kind names as ParamInfo.Kind holds them.
const (
	kindPositionalOnly = "POSITIONAL_ONLY"
	kindPositional     = "POSITIONAL_OR_KEYWORD"
	kindVarPositional  = "VAR_POSITIONAL"
	kindKeywordOnly    = "KEYWORD_ONLY"
	kindVarKeyword     = "VAR_KEYWORD"
)

// A Change is what the signature of a signature-modified API changed
// between the old release and the new one: the change summary that
// protocol §7 Stage 3 gives the task writer for modified APIs ("added or
// removed params, changed defaults; every task must exercise the change"),
// over the parameters that make an API modified in §7 Stage 1 (after
// dropping self and cls and ignoring annotations: a parameter's name, kind
// or default changed, or the count did).
//
// Each list holds parameter names in the order of the signature they come
// from (the new one, Removed the old one). A name is in at most one of
// Added and Removed and in neither when it is in DefaultChanged, KindChanged
// or Moved; one parameter may be in several of the last three. The zero
// Change changes nothing.
type Change struct {
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

	params  []bundles.ParamInfo // the new signature without self/cls
	old     []bundles.ParamInfo // the old signature without self/cls
	oldKind map[string]string   // name → kind in the old signature
}

// droppedFromS reports whether extraction leaves p out of S_param
// (protocol §7 Stage 2 "S": self, cls, args and kwargs are dropped;
// bundles/py/extract.py also drops **kwds).
func droppedFromS(p bundles.ParamInfo) bool {
	switch p.Name {
	case "self", "cls", "args", "kwargs":
		return true
	}
	return p.Kind == kindVarKeyword && p.Name == "kwds"
}

// SignatureChange returns what the signature of b changed (see [Change]);
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
func SignatureChange(b *bundles.Bundle) (c Change, ok bool) {
	if !b.IsModified {
		return Change{}, false
	}
	old := b.OldParameters
	if len(old) == 0 && b.OldSignature != nil {
		old, _ = parseSignature(*b.OldSignature)
	}
	if len(old) == 0 { // §7 Stage 1: an old entry with no parameters is never changed
		return Change{}, false
	}
	old = dropSelf(old)
	var cur []bundles.ParamInfo
	if b.Provenance != nil && b.Provenance.Signature != "" {
		if cur, ok = parseSignature(b.Provenance.Signature); !ok {
			return Change{}, false
		}
		cur = dropSelf(cur)
	} else {
		if len(b.SParam) == 0 {
			return Change{}, false
		}
		old = slices.DeleteFunc(slices.Clone(old), droppedFromS)
		kinds := map[string]string{}
		for _, p := range old {
			kinds[p.Name] = p.Kind
		}
		for _, p := range b.SParam {
			k := kinds[p.Name]
			if k == "" {
				k = kindPositional
			}
			cur = append(cur, bundles.ParamInfo{Name: p.Name, Default: p.Default, Kind: k})
		}
	}
	c.params, c.old = cur, old
	c.oldKind = map[string]string{}
	oldByName := map[string]bundles.ParamInfo{}
	for _, p := range old {
		oldByName[p.Name] = p
		c.oldKind[p.Name] = p.Kind
	}
	oldPos, newPos := positionsOf(old), positionsOf(cur)
	curNames := map[string]bool{}
	for _, p := range cur {
		curNames[p.Name] = true
		o, found := oldByName[p.Name]
		if !found {
			c.Added = append(c.Added, p.Name)
			continue
		}
		if !sameDefault(o.Default, p.Default) {
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

// Params returns the changed parameters that some call can exercise (see
// [Change.Exercised] for the rule), in the new signature's order: new
// parameters a call can name or reach by position, formerly
// positional-only ones now passable by keyword, parameters at positions
// whose binding differs in the old release (moved, inserted, formerly
// keyword-only, beyond the old positional parameters), and parameters
// whose default changed and that still have one (a call relies on it).
// Empty means no call exercises the change (e.g. it only removed
// parameters or made them keyword-only).
func (c Change) Params() []string {
	hit := map[string]bool{}
	for _, p := range c.params {
		if c.byKeyword(p) || c.reliesOn(p) {
			hit[p.Name] = true
		}
	}
	idx, from := c.positionalHits()
	pos := positionsOf(c.params)
	for _, i := range idx {
		hit[pos[i]] = true
	}
	if from >= 0 {
		if i := slices.IndexFunc(c.params, isVarPositional); i >= 0 {
			hit[c.params[i].Name] = true
		}
	}
	return c.inOrder(hit)
}

// KeywordParams returns the changed parameters that a call exercises by
// passing them by keyword (see [Change.Exercised]), in signature order.
func (c Change) KeywordParams() []string {
	var out []string
	for _, p := range c.params {
		if c.byKeyword(p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// Exercised returns the changed parameters through which a call passing
// the given keyword arguments and nPositional positional arguments
// (receiver not counted) exercises the change, in signature order; none
// means the call does not. unpacks reports that the call also unpacks *
// or ** arguments, whose contents are unknown.
//
// The rule is protocol §7 Stage 3's "every task must exercise the change"
// (the modified-API definition of §7 Stage 1, "Diff") read as: the same
// call, made against the old release, fails or binds its arguments
// differently, so a solution written for the old signature does not pass.
// Concretely a call exercises the change through parameter p when
//
//   - it passes p by keyword and p is new (the old call raises TypeError,
//     or sends the keyword into the old **kwargs) or was positional-only;
//   - its i-th positional argument binds to p and the old signature's i-th
//     positional parameter does not exist (the old call fails, or the
//     argument lands in the old *args) or is another parameter, one that
//     is still positional in the new signature or p itself was positional
//     elsewhere (a parameter was inserted or moved). A renamed parameter
//     at the same position (numpy.reshape's newshape → shape, newshape
//     now keyword-only) binds the same way and does not count;
//   - it relies on p's default (neither call passes p, by keyword or
//     position) and that default changed, including a parameter that was
//     required before (the old call fails). With unpacks this is unknown
//     and not counted;
//   - a keyword lands in the new **kwargs that the old signature lacked.
//
// Passing by keyword a parameter that merely became keyword-only, moved,
// or whose default changed does not count: the old release accepts the
// same call with the same meaning (numpy.clip(a, 1, 8), whose a_min lost
// its required status, binds exactly as before). The rule is static and
// errs both ways (a changed default may be cosmetic, numpy.bool_ →
// numpy.bool); BuildConfig.OldEnv checks it empirically.
func (c Change) Exercised(keywords []string, nPositional int, unpacks bool) []string {
	hit := map[string]bool{}
	passed := map[string]bool{} // by the new call
	oldPassed := map[string]bool{}
	for _, k := range keywords {
		oldPassed[k] = true
		i := slices.IndexFunc(c.params, func(p bundles.ParamInfo) bool {
			return p.Name == k && p.Kind != kindPositionalOnly && p.Kind != kindVarPositional && p.Kind != kindVarKeyword
		})
		if i >= 0 {
			passed[k] = true
			if c.byKeyword(c.params[i]) {
				hit[k] = true
			}
			continue
		}
		if i = slices.IndexFunc(c.params, func(p bundles.ParamInfo) bool { return p.Kind == kindVarKeyword }); i >= 0 && c.byKeyword(c.params[i]) {
			hit[c.params[i].Name] = true
		}
	}
	pos, oldPos := positionsOf(c.params), positionsOf(c.old)
	idx, from := c.positionalHits()
	for i := range nPositional {
		if i < len(oldPos) {
			oldPassed[oldPos[i]] = true
		}
		switch {
		case i < len(pos):
			passed[pos[i]] = true
			if slices.Contains(idx, i) {
				hit[pos[i]] = true
			}
		case slices.Contains(idx, i) || (from >= 0 && i >= from):
			if j := slices.IndexFunc(c.params, isVarPositional); j >= 0 {
				hit[c.params[j].Name] = true
			}
		}
	}
	if !unpacks {
		for _, p := range c.params {
			if !passed[p.Name] && !oldPassed[p.Name] && c.reliesOn(p) {
				hit[p.Name] = true
			}
		}
	}
	return c.inOrder(hit)
}

// passedPositionally reports whether a call with nPositional positional
// arguments passes parameter name by position.
func (c Change) passedPositionally(name string, nPositional int) bool {
	pos := positionsOf(c.params)
	if i := slices.Index(pos, name); i >= 0 {
		return i < nPositional
	}
	j := slices.IndexFunc(c.params, isVarPositional)
	return j >= 0 && c.params[j].Name == name && nPositional > len(pos)
}

// inOrder returns the names in hit in signature order.
func (c Change) inOrder(hit map[string]bool) []string {
	var out []string
	for _, p := range c.params {
		if hit[p.Name] {
			out = append(out, p.Name)
		}
	}
	return out
}

// positionalHits returns the 0-based positional argument indices through
// which a call exercises the change (see [Change.Exercised]), and the
// index from which on every further one does (it lands in a new *args
// where the old call failed), or -1.
func (c Change) positionalHits() (idx []int, from int) {
	pos, oldPos := positionsOf(c.params), positionsOf(c.old)
	stillPositional := map[string]bool{}
	for _, n := range pos {
		stillPositional[n] = true
	}
	for i, n := range pos {
		switch {
		case i >= len(oldPos):
			idx = append(idx, i)
		case oldPos[i] != n && (stillPositional[oldPos[i]] || slices.Contains(oldPos, n)):
			idx = append(idx, i)
		}
	}
	from = -1
	if slices.ContainsFunc(c.params, isVarPositional) {
		oldVar := slices.ContainsFunc(c.old, isVarPositional)
		for i := len(pos); i < len(oldPos); i++ { // lands in *args, the old call binds a named parameter
			idx = append(idx, i)
		}
		if !oldVar {
			from = max(len(pos), len(oldPos))
		}
	}
	return idx, from
}

// Describe says how parameter name changed, as a predicate for task
// descriptions ("is a new parameter", "is now keyword-only and has a new
// default"); "" when it did not change.
func (c Change) Describe(name string) string {
	i := slices.IndexFunc(c.params, func(p bundles.ParamInfo) bool { return p.Name == name })
	if i < 0 {
		return ""
	}
	p := c.params[i]
	if c.in(c.Added, p) {
		return "is a new parameter"
	}
	var parts []string
	if c.in(c.KindChanged, p) {
		switch p.Kind {
		case kindKeywordOnly:
			parts = append(parts, "is now keyword-only")
		case kindPositionalOnly:
			parts = append(parts, "is now positional-only")
		case kindPositional:
			parts = append(parts, "can now be passed by position or keyword")
		default:
			parts = append(parts, "is now "+strings.ToLower(p.Kind))
		}
	}
	if c.in(c.DefaultChanged, p) {
		parts = append(parts, "has a new default")
	}
	if c.in(c.Moved, p) {
		parts = append(parts, "has moved to another position")
	}
	return strings.Join(parts, " and ")
}

func (c Change) in(list []string, p bundles.ParamInfo) bool { return slices.Contains(list, p.Name) }

// byKeyword reports whether passing p by keyword exercises the change: p
// is new (a new **kwargs: the old signature had none) or was
// positional-only.
func (c Change) byKeyword(p bundles.ParamInfo) bool {
	if p.Kind == kindPositionalOnly || p.Kind == kindVarPositional {
		return false
	}
	if p.Kind == kindVarKeyword {
		return !slices.ContainsFunc(c.old, func(o bundles.ParamInfo) bool { return o.Kind == kindVarKeyword })
	}
	return c.in(c.Added, p) || c.oldKind[p.Name] == kindPositionalOnly
}

// reliesOn reports whether a call that leaves p out exercises the change:
// p has a default in the new signature and a different one, or none, in
// the old.
func (c Change) reliesOn(p bundles.ParamInfo) bool {
	return p.Default != nil && c.in(c.DefaultChanged, p) && p.Kind != kindVarPositional && p.Kind != kindVarKeyword
}

func isVarPositional(p bundles.ParamInfo) bool { return p.Kind == kindVarPositional }

// positionsOf returns the names of the parameters that can be passed
// positionally, in order.
func positionsOf(ps []bundles.ParamInfo) []string {
	var out []string
	for _, p := range ps {
		if p.Kind == kindPositionalOnly || p.Kind == kindPositional {
			out = append(out, p.Name)
		}
	}
	return out
}

func dropSelf(ps []bundles.ParamInfo) []bundles.ParamInfo {
	if len(ps) > 0 && (ps[0].Name == "self" || ps[0].Name == "cls") {
		return ps[1:]
	}
	return ps
}

// parseSignature reads str(inspect.signature(obj)) text, "(x, /, *,
// axis: int = 0, **kw) -> T", into parameters with kinds; defaults keep
// their text (a repr), annotations are dropped. ok is false when the text
// does not open with a balanced parameter list.
func parseSignature(sig string) (ps []bundles.ParamInfo, ok bool) {
	s := strings.TrimSpace(sig)
	if !strings.HasPrefix(s, "(") {
		return nil, false
	}
	end := bundles.MatchBracket(s, 0)
	if end < 0 {
		return nil, false
	}
	ps = []bundles.ParamInfo{}
	if strings.TrimSpace(s[1:end]) == "" {
		return ps, true
	}
	kind := kindPositional
	for _, part := range bundles.SplitTopLevel(s[1:end]) {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			continue
		case part == "/":
			for i := range ps {
				if ps[i].Kind == kindPositional {
					ps[i].Kind = kindPositionalOnly
				}
			}
			continue
		case part == "*":
			kind = kindKeywordOnly
			continue
		}
		head, def, hasDef := bundles.CutTopLevel(part, '=')
		name, _, _ := bundles.CutTopLevel(head, ':')
		name = strings.TrimSpace(name)
		p := bundles.ParamInfo{Name: name, Kind: kind}
		switch {
		case strings.HasPrefix(name, "**"):
			p.Name, p.Kind = name[2:], kindVarKeyword
		case strings.HasPrefix(name, "*"):
			p.Name, p.Kind = name[1:], kindVarPositional
			kind = kindKeywordOnly
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
	// As bundles' discovery normalises defaults (§7 Stage 1 "Diff").
	addrRE    = regexp.MustCompile(`0x[0-9a-fA-F]+`)
	envPathRE = regexp.MustCompile(`(/usr|/tmp|/home|/root|/opt|/var|<site-packages>|<dist-packages>)/[^\s'",)>]*`)
	// repr of a NumPy 2 scalar, "np.float64(1.0)", whose str is "1.0".
	npScalarRE = regexp.MustCompile(`^np\.[a-z_0-9]+\((.*)\)$`)
	// repr of an Enum member, "<Color.RED: 1>", whose str is "Color.RED".
	enumReprRE = regexp.MustCompile(`^<([\w.]+): .*>$`)
)

// sameDefault reports whether two defaults are the same after
// normalisation. Old parameters hold str(default) and signatures
// repr(default), so a value's repr also matches its str: a string literal
// its text, a NumPy scalar ("np.int64(0)") its number, an Enum member
// ("<Color.RED: 1>") "Color.RED", and a sentinel whose repr is "<name>"
// (pandas' "<no_default>") a str ending in ".name" ("_NoDefault.no_default").
func sameDefault(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	x, y := normDefault(*a), normDefault(*b)
	return x == y || reprOf(x, y) || reprOf(y, x)
}

func normDefault(s string) string {
	s = addrRE.ReplaceAllString(strings.TrimSpace(s), "0xADDR")
	return envPathRE.ReplaceAllString(s, "<ENVPATH>")
}

// reprOf reports whether r can be the repr of a value whose str is s
// (see sameDefault).
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
