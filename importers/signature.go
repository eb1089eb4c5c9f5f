package importers

import (
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/pysyntax"
)

// A Signature is a documented Python signature split into the parts a
// bundle's S component holds (docs/protocol.md §1.2).
type Signature struct {
	Name       string              // qualified name before "(", e.g. "math.sin"; "" for "(x, y)"
	Params     []bundles.Parameter // in order; Default holds the literal text as written
	ReturnType *string             // text after "->", nil when absent
}

// ParseSignature parses signature text as datasets write it:
// "math.sin(x, unit='radians')", "def numpy.sum(a, axis=None) -> ndarray:",
// "(x, /, *, out=None)", or docs notation with optional brackets
// ("numpy.arange([start,] stop[, step,], dtype=None)"). The markers "/" and
// "*" are dropped; "*args" and "**kwargs" keep their stars. Annotations
// become Type, "= literal" becomes Default (kept verbatim: "np._NoValue",
// "'radians'"). ok is false when the text has no balanced parameter list.
func ParseSignature(text string) (sig Signature, ok bool) {
	s := strings.TrimSpace(text)
	s = strings.TrimPrefix(s, "def ")
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return Signature{}, false
	}
	end := matchParen(s, open)
	if end < 0 {
		return Signature{}, false
	}
	sig.Name = strings.TrimSpace(s[:open])
	rest := strings.TrimSpace(s[end+1:])
	rest = strings.TrimSpace(strings.TrimPrefix(rest, ":"))
	if r, found := strings.CutPrefix(rest, "->"); found {
		r = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(r), ":"))
		if r != "" {
			sig.ReturnType = &r
		}
	}
	for _, p := range pysyntax.SplitTopLevel(dropOptionalBrackets(s[open+1 : end])) {
		p = strings.TrimSpace(p)
		if p == "" || p == "/" || p == "*" {
			continue
		}
		sig.Params = append(sig.Params, parseParam(p))
	}
	return sig, true
}

// parseParam splits "name: type = default" (each part optional but the name).
func parseParam(p string) bundles.Parameter {
	var out bundles.Parameter
	head, def, hasDef := pysyntax.CutTopLevel(p, '=')
	name, typ, hasType := pysyntax.CutTopLevel(head, ':')
	out.Name = strings.TrimSpace(name)
	if hasType {
		if t := strings.TrimSpace(typ); t != "" {
			out.Type = &t
		}
	}
	if hasDef {
		d := strings.TrimSpace(def)
		out.Default = &d
	}
	return out
}

// matchParen returns the index of the ")" closing the "(" at open, or -1
// (also when a "]" or "}" closes it).
func matchParen(s string, open int) int {
	if end := pysyntax.MatchBracket(s, open); end >= 0 && s[end] == ')' {
		return end
	}
	return -1
}

// dropOptionalBrackets removes docs-style optional brackets ("[start,]",
// "stop[, step]") while keeping subscripts inside annotations and defaults
// ("List[int]", "x=[1, 2]"): a "[" counts as a subscript only after ":" or
// "=" in the current parameter.
func dropOptionalBrackets(s string) string {
	var b strings.Builder
	var quote byte
	inValue := false // after ':' or '=' at depth 0 of the current parameter
	depth := 0       // depth of kept brackets
	opt := 0         // open optional brackets
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch {
		case c == '\'' || c == '"':
			quote = c
		case c == '[' && !inValue && depth == 0:
			opt++
			continue
		case c == ']' && opt > 0 && depth == 0:
			opt--
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case (c == ':' || c == '=') && depth == 0:
			inValue = true
		case c == ',' && depth == 0:
			inValue = false
		}
		b.WriteByte(c)
	}
	return b.String()
}
