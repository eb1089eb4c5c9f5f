package evalharness

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Code extraction, docs/protocol.md §3. Everything but the
// parseability test is text work done here in Go; whether a candidate parses
// is Python's ast.parse, asked inside the sandbox (see the package doc).

// pySpace is the class of characters Python's str.isspace() and re's \s
// accept (§9.2); Go's \s and unicode.IsSpace differ on \x1c-\x1f.
const pySpace = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

func isPySpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r == ' ', r >= 0x1c && r <= 0x1f, r == 0x85, r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// pyStrip is Python's str.strip().
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

var (
	thinkBlockRE  = regexp.MustCompile(`(?s)<think>.*?</think>` + pySpace + `*`)
	untaggedFence = regexp.MustCompile("^```[ \t]*\r?\n")
	blockRE       = regexp.MustCompile("(?s)```([A-Za-z0-9_+\\-]*)" + pySpace + "*\n?(.*?)```")
	startFenceRE  = regexp.MustCompile("^```[A-Za-z0-9_+\\-]*" + pySpace + "*\n?")
	echoRE        = regexp.MustCompile(`#` + pySpace + `*Complete the following code[^\n]*\n?`)
)

var pythonTags = map[string]bool{"python": true, "py": true, "python3": true, "py3": true}

var knownTags = map[string]bool{
	"": true, "python": true, "py": true, "python3": true, "py3": true, "bash": true, "sh": true,
	"shell": true, "console": true, "text": true, "txt": true, "json": true, "yaml": true, "yml": true,
	"html": true, "xml": true, "sql": true, "diff": true, "pseudo-code": true, "pseudocode": true, "output": true,
}

// stripTagLine is the protocol's strip_tag_line (§3 step 4).
func stripTagLine(body string) string {
	b := pyStrip(body)
	first, rest, ok := strings.Cut(b, "\n")
	if !ok {
		return b
	}
	if knownTags[strings.ToLower(pyStrip(first))] && pyStrip(rest) != "" {
		return pyStrip(rest)
	}
	return b
}

// A tier is one step of select_block: the first tier with a non-empty,
// parseable candidate decides, and within it the longest candidate (in code
// points; the first wins ties) is chosen.
type tier struct {
	Step  int      `json:"step"` // §3 select_block step: 4..8
	Cands []string `json:"cands"`
}

// An extractionPlan is select_block applied to a response up to the
// parseability tests: Main for the response, Tail for the text after the
// last echoed "# Complete the following code" line (nil when absent or
// blank), used only when Main yields "".
type extractionPlan struct {
	Main []tier `json:"main"`
	Tail []tier `json:"tail"`
}

// planExtraction computes the plan of extract_code(response) (§3).
func planExtraction(response string) extractionPlan {
	p := extractionPlan{Main: planBlock(response)}
	if locs := echoRE.FindAllStringIndex(response, -1); len(locs) > 0 {
		tail := response[locs[len(locs)-1][1]:]
		if pyStrip(tail) != "" {
			p.Tail = planBlock(tail)
		}
	}
	return p
}

// planBlock returns the tiers of select_block(text).
func planBlock(text string) []tier {
	// Step 1: strip reasoning.
	if strings.Contains(text, "<think>") || strings.Contains(text, "</think>") {
		text = thinkBlockRE.ReplaceAllString(text, "")
		if _, after, ok := strings.Cut(text, "</think>"); ok {
			text = strings.TrimLeftFunc(after, isPySpace)
		}
	}
	text = pyStrip(text)
	// Step 2: a stray untagged opener when the fence count is odd.
	if strings.Count(text, "```")%2 == 1 {
		if loc := untaggedFence.FindStringIndex(text); loc != nil {
			text = text[loc[1]:]
		}
	}
	var tiers []tier
	add := func(step int, cands []string) {
		var keep []string
		for _, c := range cands {
			if c != "" {
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 {
			tiers = append(tiers, tier{Step: step, Cands: keep})
		}
	}
	// Steps 3-5: fenced blocks, Python-tagged first, then any tag.
	var tagged, all []string
	for _, m := range blockRE.FindAllStringSubmatch(text, -1) {
		body := stripTagLine(m[2])
		all = append(all, body)
		if pythonTags[strings.ToLower(m[1])] {
			tagged = append(tagged, body)
		}
	}
	add(4, tagged)
	add(5, all)
	// Step 6: a leading fence, up to the next fence or the end.
	if loc := startFenceRE.FindStringIndex(text); loc != nil {
		rest := text[loc[1]:]
		if i := strings.Index(rest, "```"); i >= 0 {
			rest = rest[:i]
		}
		add(6, []string{pyStrip(rest)})
	}
	// Step 7: no fence at all, the whole text.
	if !strings.Contains(text, "```") {
		add(7, []string{text})
	}
	// Step 8: segments between fences.
	var segs []string
	for _, s := range strings.Split(text, "```") {
		segs = append(segs, stripTagLine(s))
	}
	add(8, segs)
	return tiers
}

// candidates returns every distinct candidate of the plan, the snippets
// whose parseability decides the extraction.
func (p extractionPlan) candidates() []string {
	seen := map[string]bool{}
	var out []string
	for _, ts := range [][]tier{p.Main, p.Tail} {
		for _, t := range ts {
			for _, c := range t.Cands {
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// selectTiers returns the chosen candidate of tiers given the parse oracle.
func selectTiers(tiers []tier, parses func(string) bool) string {
	for _, t := range tiers {
		best, bestLen := "", -1
		for _, c := range t.Cands {
			if n := utf8.RuneCountInString(c); n > bestLen && parses(c) {
				best, bestLen = c, n
			}
		}
		if bestLen >= 0 {
			return best
		}
	}
	return ""
}

// Select runs the plan with the parse oracle and post-processes the code
// (§3): the result of extract_code.
func (p extractionPlan) Select(parses func(string) bool) string {
	code := selectTiers(p.Main, parses)
	if code == "" && p.Tail != nil {
		code = selectTiers(p.Tail, parses)
	}
	return postprocess(code)
}

const solutionDef = "def solution():"

// postprocess applies the def solution(): rule of §3; indentation is left
// in place (§9.5).
func postprocess(code string) string {
	if strings.HasPrefix(code, solutionDef) {
		_, rest, _ := strings.Cut(code, "\n")
		return rest
	}
	if _, after, ok := strings.Cut(code, solutionDef); ok {
		return after
	}
	return code
}
