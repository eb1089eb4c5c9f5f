package evalharness

import (
	"fmt"
	"regexp"
	"strconv"
)

// scriptName is the flat script's file name in tracebacks (py/runner.py
// SCRIPT).
const scriptName = "_solution.py"

// A scriptPart places one part of the flat script (setup, solution or
// test; docs/protocol.md §4.1) in it, from the runner's "layout"
// record.
type scriptPart struct {
	Name  string `json:"name"`  // setup, solution, test
	Start int    `json:"start"` // first line in the flat script, 1-based
	Lines int    `json:"lines"` // line count of the stripped part
	Lead  int    `json:"lead"`  // blank lines strip() removed before it
}

// partLine returns the part holding line (1-based) of the flat script and
// the line's number in that part as it was given (before stripping).
func partLine(layout []scriptPart, line int) (scriptPart, int, bool) {
	for _, p := range layout {
		if line >= p.Start && line < p.Start+p.Lines {
			return p, line - p.Start + 1 + p.Lead, true
		}
	}
	return scriptPart{}, 0, false
}

// whereLine names line of the flat script for the user: "line 3 of your
// code" in the completion, "line 7 of the task's test" or "line 40 of the
// harness setup" in the parts the harness adds, else "line 451 of the
// assembled script" (a separator line, or no layout).
func whereLine(layout []scriptPart, line int) string {
	p, n, ok := partLine(layout, line)
	if !ok {
		return fmt.Sprintf("line %d of the assembled script", line)
	}
	switch p.Name {
	case "solution":
		return fmt.Sprintf("line %d of your code", n)
	case "test":
		return fmt.Sprintf("line %d of the task's test", n)
	}
	return fmt.Sprintf("line %d of the harness setup", n)
}

var (
	// tbFileLineRE matches a traceback frame's location in the flat script.
	tbFileLineRE = regexp.MustCompile(`File "` + regexp.QuoteMeta(scriptName) + `", line (\d+)`)
	// synLineRE matches a SyntaxError message's location, "(_solution.py, line 450)".
	synLineRE = regexp.MustCompile(`\(` + regexp.QuoteMeta(scriptName) + `, line (\d+)\)`)
	// warnLineRE matches a warning's location, "/job/_solution.py:593: FutureWarning: ...".
	warnLineRE = regexp.MustCompile(`\S*` + regexp.QuoteMeta(scriptName) + `:(\d+):`)
)

// userLines rewrites the flat script's locations in s (a traceback or an
// exception message) to the parts' own lines: `File "_solution.py", line
// 450` becomes "line 3 of your code", "(_solution.py, line 450)" becomes
// "(line 3 of your code)" and a warning's "/job/_solution.py:450:" becomes
// "line 3 of your code:". Without a layout s is returned as is.
func userLines(layout []scriptPart, s string) string {
	if len(layout) == 0 {
		return s
	}
	repl := func(re *regexp.Regexp, wrap string) func(string) string {
		return func(m string) string {
			n, err := strconv.Atoi(re.FindStringSubmatch(m)[1])
			if err != nil {
				return m
			}
			return fmt.Sprintf(wrap, whereLine(layout, n))
		}
	}
	s = tbFileLineRE.ReplaceAllStringFunc(s, repl(tbFileLineRE, "%s"))
	s = warnLineRE.ReplaceAllStringFunc(s, repl(warnLineRE, "%s:"))
	return synLineRE.ReplaceAllStringFunc(s, repl(synLineRE, "(%s)"))
}

// partRank orders the parts for raisedAt: the user's own code first.
var partRank = map[string]int{"solution": 3, "test": 2, "setup": 1}

// raisedAt locates the exception of r in the script: its innermost frame in
// the completion, else in the test, else in the setup (library frames
// skipped), or a SyntaxError's line. It
// returns the user-facing description ("line 3 of your code") and, when
// that line is in the completion, its number there; "" and 0 when unknown.
func (r *runRecords) raisedAt() (where string, codeLine int) {
	e := r.Exception
	if e == nil || len(r.Layout) == 0 {
		return "", 0
	}
	// The innermost frame in the completion, else in the test, else in the
	// setup (the monitor's spy wraps every target call: its frames are
	// innermost whenever the target raises).
	line, rank := 0, 0
	for _, f := range e.Frames {
		if f.File != scriptName {
			continue
		}
		p, _, _ := partLine(r.Layout, f.Line)
		if k := partRank[p.Name] + 1; k >= rank {
			line, rank = f.Line, k
		}
	}
	if line == 0 {
		if m := synLineRE.FindStringSubmatch(e.Msg); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
	}
	if line == 0 {
		return "", 0
	}
	if p, n, ok := partLine(r.Layout, line); ok && p.Name == "solution" {
		codeLine = n
	}
	return whereLine(r.Layout, line), codeLine
}
