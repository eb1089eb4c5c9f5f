package bundles

import (
	"fmt"
	"slices"
	"strings"
)

// Parameter kinds, as Python's inspect.Parameter.kind names them (the Kind
// of ParamInfo).
const (
	KindPositionalOnly    = "POSITIONAL_ONLY"
	KindPositionalOrKw    = "POSITIONAL_OR_KEYWORD"
	KindVarPositional     = "VAR_POSITIONAL"
	KindKeywordOnly       = "KEYWORD_ONLY"
	KindVarKeyword        = "VAR_KEYWORD"
	noDefault             = "\x00"
	signatureReturnMarker = "->"
)

// ParseSignature reads the parameters of a signature as str(inspect.signature)
// prints it ("(x, /, *, axis=0, **kwargs) -> 'Series'"): names, defaults
// (nil when none) and kinds, from the "/" and "*" markers and the * and **
// prefixes; annotations are dropped. It reads what Python prints, not any
// source: an unbalanced string gives whatever pieces it gives, and a string
// not starting with "(" gives nil.
func ParseSignature(sig string) []ParamInfo {
	sig = strings.TrimSpace(sig)
	if !strings.HasPrefix(sig, "(") {
		return nil
	}
	end := MatchBracket(sig, 0)
	if end < 0 {
		return nil
	}
	inner := strings.TrimSpace(sig[1:end])
	if inner == "" {
		return nil
	}
	var out []ParamInfo
	kind := KindPositionalOrKw
	for _, piece := range SplitTopLevel(inner) {
		p := strings.TrimSpace(piece)
		switch {
		case p == "/":
			for i := range out {
				out[i].Kind = KindPositionalOnly
			}
			continue
		case p == "*":
			kind = KindKeywordOnly
			continue
		}
		head, def, hasDef := CutTopLevel(p, '=')
		name, _, _ := CutTopLevel(head, ':')
		name = strings.TrimSpace(name)
		pi := ParamInfo{Name: name, Kind: kind}
		switch {
		case strings.HasPrefix(name, "**"):
			pi.Name, pi.Kind = name[2:], KindVarKeyword
		case strings.HasPrefix(name, "*"):
			pi.Name, pi.Kind = name[1:], KindVarPositional
			kind = KindKeywordOnly
		}
		if hasDef {
			pi.Default = StringPtr(strings.TrimSpace(def))
		}
		out = append(out, pi)
	}
	return out
}

// SignatureChanges says, in a few words each, how a modified API's
// parameters changed between old and new (ParamInfo lists in order, as in
// a bundle's old_parameters and ParseSignature of its live signature):
// parameters removed, added (with their default), whose default changed
// (a string default compares without its quotes, since old_parameters hold
// str(default) and signatures repr), and whose kind changed, grouped by
// kind ("axis, dtype became keyword-only"). self and cls are left out. An empty result means the parameter lists match in names,
// defaults and kinds (the change is elsewhere: order, annotations, return).
func SignatureChanges(old, new []ParamInfo) []string {
	skip := func(n string) bool { return n == "self" || n == "cls" }
	oldBy := map[string]ParamInfo{}
	for _, p := range old {
		oldBy[p.Name] = p
	}
	newBy := map[string]ParamInfo{}
	for _, p := range new {
		newBy[p.Name] = p
	}
	var removed, added, changed []string
	var kindOrder []string
	becameKind := map[string][]string{} // new kind → parameters that became it
	for _, p := range old {
		if _, ok := newBy[p.Name]; !ok && !skip(p.Name) {
			removed = append(removed, displayParam(p, false))
		}
	}
	for _, p := range new {
		if skip(p.Name) {
			continue
		}
		o, ok := oldBy[p.Name]
		if !ok {
			added = append(added, displayParam(p, true))
			continue
		}
		if od, nd := defaultOf(o), defaultOf(p); defaultForm(od) != defaultForm(nd) {
			switch {
			case od == noDefault:
				changed = append(changed, fmt.Sprintf("%s now defaults to %s", p.Name, nd))
			case nd == noDefault:
				changed = append(changed, fmt.Sprintf("%s is now required (was %s)", p.Name, od))
			default:
				changed = append(changed, fmt.Sprintf("%s default %s → %s", p.Name, od, nd))
			}
		}
		if o.Kind != "" && p.Kind != "" && o.Kind != p.Kind {
			if becameKind[p.Kind] == nil {
				kindOrder = append(kindOrder, p.Kind)
			}
			becameKind[p.Kind] = append(becameKind[p.Kind], p.Name)
		}
	}
	for _, k := range kindOrder {
		changed = append(changed, fmt.Sprintf("%s became %s", strings.Join(becameKind[k], ", "), kindWords(k)))
	}
	var out []string
	if len(removed) > 0 {
		out = append(out, "removed "+strings.Join(removed, ", "))
	}
	if len(added) > 0 {
		out = append(out, "added "+strings.Join(added, ", "))
	}
	return append(out, changed...)
}

// defaultForm puts a default's str and repr in one form: old_parameters
// hold str(default) ("reflect", "_NoDefault.no_default") and signatures
// repr(default) ("'reflect'", "<no_default>").
func defaultForm(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	if s == "_NoDefault.no_default" { // pandas' sentinel
		return "<no_default>"
	}
	return s
}

func defaultOf(p ParamInfo) string {
	if p.Default == nil {
		return noDefault
	}
	return *p.Default
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
		return p.Name + "=" + *p.Default
	}
	return p.Name
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

// SignatureChanges returns [SignatureChanges] of a modified API's previous
// parameters (old_parameters, else its old_signature parsed) and its live
// signature (Provenance.Signature parsed, else S_param's names and
// defaults, without kinds). It is nil for a new API or when either side is
// unknown.
func (b *Bundle) SignatureChanges() []string {
	if !b.IsModified {
		return nil
	}
	old := b.OldParameters
	if len(old) == 0 && b.OldSignature != nil {
		old = ParseSignature(*b.OldSignature)
	}
	var cur []ParamInfo
	if b.Provenance != nil && b.Provenance.Signature != "" {
		cur = ParseSignature(b.Provenance.Signature)
	} else {
		// S_param lists neither *args nor **kwargs: leave them out of old.
		for _, p := range b.SParam {
			cur = append(cur, ParamInfo{Name: p.Name, Default: p.Default})
		}
		old = slices.DeleteFunc(slices.Clone(old), func(p ParamInfo) bool {
			return p.Kind == KindVarPositional || p.Kind == KindVarKeyword
		})
	}
	if len(old) == 0 || len(cur) == 0 {
		return nil
	}
	return SignatureChanges(old, cur)
}
