// Package pysyntax reads Python source text without running Python:
// identifiers, brackets and top-level separators of parameter lists and call
// arguments. It is for the small text decisions made on the Go side
// (bundles, pool, evalharness, importers), where starting a sandboxed
// interpreter would cost a run; anything that needs Python's own parser
// runs inside the sandbox instead (docs/protocol.md §9.1).
package pysyntax

import (
	"strings"
	"unicode"
)

// walkCode calls f for each byte of s, from start on, that is outside
// string quotes, with the bracket depth ((), [], {}) after that byte, until
// f returns false. It reads Python source such as parameter lists and call
// arguments; it is not a tokenizer (comments and triple quotes are not special).
func walkCode(s string, start int, f func(i, depth int) bool) {
	depth := 0
	var quote byte
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"':
			quote = c
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
		if !f(i, depth) {
			return
		}
	}
}

// CutTopLevel cuts s, a piece of Python source such as a parameter list or
// call arguments, at the first sep that is outside brackets ((), [], {})
// and string quotes. found is false, and before is s, when there is none.
// sep must not be a bracket or a quote.
func CutTopLevel(s string, sep byte) (before, after string, found bool) {
	before = s
	walkCode(s, 0, func(i, depth int) bool {
		if s[i] == sep && depth == 0 {
			before, after, found = s[:i], s[i+1:], true
			return false
		}
		return true
	})
	return before, after, found
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

// MatchBracket returns the index of the bracket that closes the one at
// s[open], skipping brackets inside string quotes, or -1 when s[open] is
// not an opening bracket or is never closed.
func MatchBracket(s string, open int) int {
	if open < 0 || open >= len(s) || !strings.ContainsRune("([{", rune(s[open])) {
		return -1
	}
	end := -1
	walkCode(s, open, func(i, depth int) bool {
		if depth == 0 {
			end = i
			return false
		}
		return true
	})
	return end
}

// IsIdentifier reports whether s is a Python identifier: letters (Unicode
// included), digits and underscores, not starting with a digit. Keywords
// count as identifiers.
func IsIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r)) {
			continue
		}
		return false
	}
	return true
}

// IsDottedName reports whether s is a dotted Python name: one or more
// identifiers ([IsIdentifier]) joined by single dots ("numpy.linalg.norm").
// Such a name can be pasted into an import statement or an attribute
// access without changing what the statement does.
func IsDottedName(s string) bool {
	for seg := range strings.SplitSeq(s, ".") {
		if !IsIdentifier(seg) {
			return false
		}
	}
	return true
}
