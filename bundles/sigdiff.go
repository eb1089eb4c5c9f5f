package bundles

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

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
