package construct

import (
	"slices"
	"strings"

	"github.com/novelapi/novelapi/bundles"
)

// A Change is what the signature of a signature-modified API changed
// between the old release and the new one ([bundles.SignatureDiff]: the
// change summary that docs/protocol.md §7 Stage 3 gives the task writer for
// modified APIs), with the rules of which calls exercise it.
type Change struct {
	bundles.SignatureDiff
	oldKind map[string]string // name → kind in the old signature
}

// SignatureChange returns what the signature of b changed (see
// [bundles.DiffSignature]); ok is false when b is not signature-modified
// or either signature is unknown.
func SignatureChange(b *bundles.Bundle) (c Change, ok bool) {
	d, ok := bundles.DiffSignature(b)
	if !ok {
		return Change{}, false
	}
	c.SignatureDiff = d
	c.oldKind = map[string]string{}
	for _, p := range d.Old {
		c.oldKind[p.Name] = p.Kind
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
	for _, p := range c.New {
		if c.byKeyword(p) || c.reliesOn(p) {
			hit[p.Name] = true
		}
	}
	idx, from := c.positionalHits()
	pos := bundles.PositionalNames(c.New)
	for _, i := range idx {
		hit[pos[i]] = true
	}
	if from >= 0 {
		if i := slices.IndexFunc(c.New, isVarPositional); i >= 0 {
			hit[c.New[i].Name] = true
		}
	}
	return c.inOrder(hit)
}

// KeywordParams returns the changed parameters that a call exercises by
// passing them by keyword (see [Change.Exercised]), in signature order.
func (c Change) KeywordParams() []string {
	var out []string
	for _, p := range c.New {
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
// The rule is docs/protocol.md §7 Stage 3's "every task must exercise the change"
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
		i := slices.IndexFunc(c.New, func(p bundles.ParamInfo) bool {
			return p.Name == k && p.Kind != bundles.KindPositionalOnly && p.Kind != bundles.KindVarPositional && p.Kind != bundles.KindVarKeyword
		})
		if i >= 0 {
			passed[k] = true
			if c.byKeyword(c.New[i]) {
				hit[k] = true
			}
			continue
		}
		if i = slices.IndexFunc(c.New, func(p bundles.ParamInfo) bool { return p.Kind == bundles.KindVarKeyword }); i >= 0 && c.byKeyword(c.New[i]) {
			hit[c.New[i].Name] = true
		}
	}
	pos, oldPos := bundles.PositionalNames(c.New), bundles.PositionalNames(c.Old)
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
			if j := slices.IndexFunc(c.New, isVarPositional); j >= 0 {
				hit[c.New[j].Name] = true
			}
		}
	}
	if !unpacks {
		for _, p := range c.New {
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
	pos := bundles.PositionalNames(c.New)
	if i := slices.Index(pos, name); i >= 0 {
		return i < nPositional
	}
	j := slices.IndexFunc(c.New, isVarPositional)
	return j >= 0 && c.New[j].Name == name && nPositional > len(pos)
}

// inOrder returns the names in hit in signature order.
func (c Change) inOrder(hit map[string]bool) []string {
	var out []string
	for _, p := range c.New {
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
	pos, oldPos := bundles.PositionalNames(c.New), bundles.PositionalNames(c.Old)
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
	if slices.ContainsFunc(c.New, isVarPositional) {
		oldVar := slices.ContainsFunc(c.Old, isVarPositional)
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
	i := slices.IndexFunc(c.New, func(p bundles.ParamInfo) bool { return p.Name == name })
	if i < 0 {
		return ""
	}
	p := c.New[i]
	if c.in(c.Added, p) {
		return "is a new parameter"
	}
	var parts []string
	if c.in(c.KindChanged, p) {
		switch p.Kind {
		case bundles.KindKeywordOnly:
			parts = append(parts, "is now keyword-only")
		case bundles.KindPositionalOnly:
			parts = append(parts, "is now positional-only")
		case bundles.KindPositionalOrKw:
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
	if p.Kind == bundles.KindPositionalOnly || p.Kind == bundles.KindVarPositional {
		return false
	}
	if p.Kind == bundles.KindVarKeyword {
		return !slices.ContainsFunc(c.Old, func(o bundles.ParamInfo) bool { return o.Kind == bundles.KindVarKeyword })
	}
	return c.in(c.Added, p) || c.oldKind[p.Name] == bundles.KindPositionalOnly
}

// reliesOn reports whether a call that leaves p out exercises the change:
// p has a default in the new signature and a different one, or none, in
// the old.
func (c Change) reliesOn(p bundles.ParamInfo) bool {
	return p.Default != nil && c.in(c.DefaultChanged, p) && p.Kind != bundles.KindVarPositional && p.Kind != bundles.KindVarKeyword
}

func isVarPositional(p bundles.ParamInfo) bool { return p.Kind == bundles.KindVarPositional }
