package bundles

// CutTopLevel cuts s, a piece of Python source such as a parameter list or
// call arguments, at the first sep that is outside brackets ((), [], {})
// and string quotes. found is false, and before is s, when there is none.
func CutTopLevel(s string, sep byte) (before, after string, found bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == sep && depth == 0:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// SplitTopLevel splits s at the commas outside brackets and quotes, keeping
// the pieces as they are (untrimmed; an empty s gives one empty piece).
func SplitTopLevel(s string) []string {
	var out []string
	for {
		before, after, found := CutTopLevel(s, ',')
		out = append(out, before)
		if !found {
			return out
		}
		s = after
	}
}
