package importers

import (
	"regexp"
	"strings"
)

// statementStarts returns the byte offsets in src of the lines that begin a
// top-level statement: unindented, outside brackets and strings (single-
// or triple-quoted, with any prefix), not continuing a line that ends in a
// backslash, neither blank nor a comment, not a clause of the statement
// before (else, elif, except, finally) and not the definition its
// decorators start (the decorators' first line is the start, as in
// Python's ast). It reads source the way
// Python's tokenizer splits logical lines (Python reference §2.1), without
// building tokens, so a prompt that stops in the middle of a statement
// (`new_df = `) still yields the starts before it.
func statementStarts(src string) []int {
	var (
		out     []int
		depth   int
		quote   string // "", `'`, `"`, `'''` or `"""`
		lineBeg = true
		cont    bool // the previous physical line ended with a backslash
		// decorated: the last start was a decorator, so the next start
		// (another decorator or the definition) belongs to it
		decorated bool
	)
	for i := 0; i < len(src); i++ {
		c := src[i]
		if lineBeg {
			lineBeg = false
			if quote == "" && depth == 0 && !cont && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '#' && c != '\f' &&
				!clause.MatchString(src[i:]) {
				if !decorated {
					out = append(out, i)
				}
				decorated = c == '@'
			}
			cont = false
		}
		switch {
		case quote != "":
			switch {
			case c == '\\':
				if i+1 < len(src) && src[i+1] == '\n' {
					lineBeg = true
				}
				i++
			case strings.HasPrefix(src[i:], quote):
				i += len(quote) - 1
				quote = ""
			case c == '\n':
				if len(quote) == 1 { // unterminated single-quoted string: the line ends it
					quote = ""
				}
				lineBeg = true
			}
		case c == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '\'' || c == '"':
			quote = string(c)
			if strings.HasPrefix(src[i:], strings.Repeat(string(c), 3)) {
				quote = strings.Repeat(string(c), 3)
				i += 2
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			cont = true
			i++
			lineBeg = true
			continue
		case c == '\n':
			lineBeg = true
		}
	}
	return out
}

var (
	// clause matches the unindented keywords that continue a compound
	// statement.
	clause = regexp.MustCompile(`^(?:else|elif|except|finally)\b`)
	// defLine matches a top-level function definition line.
	defLine = regexp.MustCompile(`(?m)^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(`)
)

// splitPrompt cuts a HumanEval-style prompt into the context that precedes
// the code a completion writes and the rest: the prompt up to the entry
// point's top-level def (with its decorators), else up to the last
// top-level def, else, for prompts without a function (APICoder's
// entry_point "none"), up to the last top-level statement, which the
// prompt leaves unfinished (`new_df = `) or which the completion follows.
// context + rest == prompt. The context keeps everything before the cut
// verbatim: multi-line imports, constants, helper functions, data.
func splitPrompt(prompt, entry string) (context, rest string) {
	starts := statementStarts(prompt)
	if len(starts) == 0 {
		return "", prompt
	}
	cut, last := -1, -1
	for k, s := range starts {
		stmt := prompt[s:]
		if k+1 < len(starts) {
			stmt = prompt[s:starts[k+1]]
		}
		if stmt[0] == '@' { // decorators, then the definition
			if loc := defLine.FindStringIndex(stmt); loc != nil {
				stmt = stmt[loc[0]:]
			}
		}
		m := defLine.FindStringSubmatch(stmt)
		if m == nil || !strings.HasPrefix(stmt, m[0]) {
			continue
		}
		last = k
		if m[1] == entry {
			cut = k
		}
	}
	if cut < 0 {
		cut = last
	}
	if cut < 0 {
		cut = len(starts) - 1
	}
	at := starts[cut]
	return prompt[:at], prompt[at:]
}
