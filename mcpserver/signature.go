package mcpserver

import (
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/bundles"
)

// callSignature returns the call signature of b with Python's parameter
// kind markers, e.g. "numpy.unstack(x, /, *, axis=0)", or "" when it cannot
// be derived. The S component (docs/protocol.md §2.2) lists parameters
// without their kinds, so a model following it writes np.unstack(a, 1) and
// gets a TypeError; search_apis and get_api add this line to S (the
// protocol's rendering, bundles.Render, is unchanged).
//
// Bundles extracted by novelapi record the live signature in
// Provenance.Signature, which is used as it is. Other bundles (the published
// format has no such field) get the signature read from the def header in the C component (the implementation source): the
// header of the function, or of __init__ for a class, without self/cls. It
// is used only when it has every S_param name, in S_param's order, so a
// helper's header is never shown. C-implemented
// APIs (ufuncs, builtins) have no source and get no line.
func callSignature(b *bundles.Bundle) string {
	if b.Provenance != nil && strings.HasPrefix(b.Provenance.Signature, "(") {
		return b.APIName + b.Provenance.Signature // the live signature, recorded at extraction
	}
	if b.Implementation == "" {
		return ""
	}
	leaf := bundles.LeafName(b.APIName)
	params, ok := defParams(b.Implementation, leaf)
	if !ok {
		if params, ok = defParams(b.Implementation, "__init__"); !ok {
			return ""
		}
	}
	if len(params) > 0 && (paramName(params[0]) == "self" || paramName(params[0]) == "cls") {
		params = params[1:]
	}
	// The header must describe the parameters S lists: each of them, in
	// the same order (S may leave out *args, **kwargs or parameters the
	// extraction dropped).
	pos := map[string]int{}
	for i, p := range params {
		if n := paramName(p); n != "" {
			pos[n] = i
		}
	}
	last := -1
	for _, p := range b.SParam {
		i, ok := pos[p.Name]
		if !ok || i < last {
			return ""
		}
		last = i
	}
	return b.APIName + "(" + strings.Join(params, ", ") + ")"
}

// paramName is the name in one parameter of a def header ("axis: int = 0"
// → "axis", "**kwargs" → "kwargs"); "" for the markers "/" and "*".
func paramName(p string) string {
	if p == "/" || p == "*" {
		return ""
	}
	p = strings.TrimLeft(p, "*")
	if i := strings.IndexAny(p, ":="); i >= 0 {
		p = p[:i]
	}
	return strings.TrimSpace(p)
}

// defParams finds "def name(" in src and returns the parameters of that
// header split at top-level commas, whitespace collapsed and comments
// removed; ok is false when there is no such header or it does not close.
func defParams(src, name string) (params []string, ok bool) {
	re := regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+` + regexp.QuoteMeta(name) + `[ \t]*\(`)
	loc := re.FindStringIndex(src)
	if loc == nil {
		return nil, false
	}
	var (
		cur   strings.Builder
		depth = 1
		quote byte
	)
	flush := func() {
		if p := strings.Join(strings.Fields(cur.String()), " "); p != "" {
			params = append(params, p)
		}
		cur.Reset()
	}
	for i := loc[1]; i < len(src); i++ {
		c := src[i]
		if quote != 0 {
			cur.WriteByte(c)
			switch c {
			case '\\':
				if i+1 < len(src) {
					i++
					cur.WriteByte(src[i])
				}
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
		case '#': // a comment runs to the end of the line
			for i < len(src) && src[i] != '\n' {
				i++
			}
			cur.WriteByte(' ')
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				flush()
				return params, true
			}
		case ',':
			if depth == 1 {
				flush()
				continue
			}
		}
		cur.WriteByte(c)
	}
	return nil, false
}

// signatureLine is the line added to S, with the meaning of the markers
// when the signature has any.
func signatureLine(sig string) string {
	line := "Signature: " + sig
	var notes []string
	if strings.Contains(sig, "(/") || strings.Contains(sig, ", /") {
		notes = append(notes, "parameters before / are positional-only")
	}
	if strings.Contains(sig, "(*,") || strings.Contains(sig, ", *,") || strings.Contains(sig, ", *)") || strings.Contains(sig, "(*)") {
		notes = append(notes, "parameters after * are keyword-only")
	}
	if len(notes) > 0 {
		line += "  (" + strings.Join(notes, "; ") + ")"
	}
	return line
}
