package evalharness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hbollon/go-edlib"

	"github.com/novelapi/novelapi/pool"
)

// Taxonomies: how a failure gets its label (docs/protocol.md §5.2).
const (
	// TaxonomyRuntime decides from what the run recorded (runtimeClass),
	// with the judge only where that evidence says nothing.
	TaxonomyRuntime = "runtime"
	// TaxonomyProtocol is §5.2's procedure exactly: rules (a)-(c) on the
	// kept stderr, the judge, the textual fallback.
	TaxonomyProtocol = "protocol"
)

// Taxonomies lists the accepted Config.Taxonomy values, default first.
var Taxonomies = []string{TaxonomyRuntime, TaxonomyProtocol}

var (
	// stubLineRE matches a line that does nothing: blank, a comment,
	// pass, an ellipsis, or a def/class header (an empty stub's parts).
	stubLineRE = regexp.MustCompile(`^\s*(?:#.*|pass|\.\.\.|(?:async\s+)?def\s.*:|class\s.*:|"""[^"]*"""|'''[^']*''')?\s*$`)
	// indexShapeExc are exception types that speak of positions or axes.
	indexShapeExc = map[string]bool{"IndexError": true, "AxisError": true}
)

// emptyStub reports code that defines nothing that runs: empty (an empty
// or prose response extracts to "", §3) or only pass, "...", comments,
// docstrings and headers.
func emptyStub(code string) bool {
	for line := range strings.SplitSeq(code, "\n") {
		if !stubLineRE.MatchString(line) {
			return false
		}
	}
	return true
}

// misspelt reports whether got names want with a small slip: equal, one
// a prefix of the other, or at most 2 edits (with transpositions) apart
// for names of 5 or more characters, 1 for shorter ones.
func misspelt(got, want string) bool {
	got, want = strings.ToLower(got), strings.ToLower(want)
	if got == "" || want == "" {
		return false
	}
	if got == want || strings.HasPrefix(got, want) || strings.HasPrefix(want, got) {
		return true
	}
	limit := 1
	if len(want) >= 5 {
		limit = 2
	}
	return edlib.OSADamerauLevenshteinDistance(got, want) <= limit
}

// targetCalled reports whether the spy counted a call of the task's
// targets by the completion (inside its entry point for entry-point
// tasks); false with the spy off.
func (f *failureFacts) targetCalled() bool {
	if f.Recs == nil || !f.Task.SpyNeeded() {
		return false
	}
	s := f.Recs.Spy
	if f.Task.SpyScope == pool.SpyScopeEntryPoint {
		s = f.Recs.EntrySpy
	}
	return s != nil && s.Count > 0
}

// libraryTops are the top-level packages of the task's targets.
func (f *failureFacts) libraryTops() []string {
	var out []string
	for _, t := range f.Task.Targets() {
		if top := topPackage(t); t != "" && top != "" {
			out = append(out, top)
		}
	}
	return out
}

func (f *failureFacts) ofLibrary(module string) bool {
	top := topPackage(module)
	for _, t := range f.libraryTops() {
		if misspelt(top, t) {
			return true
		}
	}
	return false
}

// nearTarget reports whether name is the leaf of a target, or a slip of it.
func (f *failureFacts) nearTarget(name string) bool {
	for _, t := range f.Task.Targets() {
		if l := leafOf(t); l != "" && misspelt(name, l) && (len(name) > 2 || name == l) {
			return true
		}
	}
	return false
}

func leafOf(api string) string {
	if i := strings.LastIndexByte(api, '.'); i >= 0 {
		return api[i+1:]
	}
	return api
}

// raisedInLibrary reports whether the exception's innermost frame is
// library code (not the assembled script): the completion called a
// function that refused its input.
func raisedInLibrary(e *excRecord) bool {
	if len(e.Frames) == 0 {
		return false
	}
	last := e.Frames[len(e.Frames)-1]
	return last.File != scriptName && !strings.HasPrefix(last.File, "<")
}

// runtimeClass labels a failed run from what the runner recorded (§5.1
// meanings; docs/protocol.md §5.2 "runtime"): which phase and frame
// raised, whether the spy saw the target called and what the spy noted
// of an exception that left a target call, and what the failed import or
// attribute look-up named. ok is false when the run recorded nothing to
// go on; a label without evidence about the target is marked Weak.
func runtimeClass(f *failureFacts) (classification, bool) {
	api := f.Task.APIName
	spyOn := f.Task.SpyNeeded()
	called := f.targetCalled()
	r := f.Recs
	var e *excRecord
	if r != nil {
		e = r.Exception
	}
	c := func(label, rule, why string) (classification, bool) {
		return classification{Label: label, Rule: "runtime:" + rule, Rationale: clip(why)}, true
	}
	switch {
	case r != nil && r.Unrenamed != "":
		return c(pool.LabelWrongAPISelection, "unrenamed", "the completion names `"+r.Unrenamed+"`, a name of the real library that the renamed pool's library does not have: translated back as the pool's harness does, it runs as \"error!\"")
	case (f.CodeEmpty || (!f.CodeLost && emptyStub(f.Code))) && (e == nil || e.Phase != "compile"):
		return c(pool.LabelWrongSyntax, "empty", "the response holds no code that does anything (empty, prose or a stub)")
	case e != nil && e.Phase == "compile":
		return c(pool.LabelWrongSyntax, "compile", "the completion does not compile: "+e.Exc+": "+strings.TrimSpace(e.Msg))
	case f.TimedOut && f.CodeLost:
		return c(pool.LabelWrongLogic, "timeout", "timed out before the runner reported what ran (runaway loop or slow code); whether the target was called is unknown")
	case f.TimedOut && called:
		return c(pool.LabelWrongLogic, "timeout", "timed out after the target was called")
	case f.TimedOut:
		return c(pool.LabelWrongLogic, "timeout", "timed out (runaway loop or slow code); the target was not called")
	case e == nil:
		status := strings.ToLower(strings.ReplaceAll(f.Status, "_", " "))
		switch {
		case spyOn && !called:
			return c(pool.LabelWrongAPISelection, "not-called", "the spy saw no call of "+api)
		case called && status != "":
			return c(pool.LabelWrongLogic, "ended-after-target", "the run ended ("+status+") after the target was called")
		}
		return classification{}, false
	}
	msg := strings.TrimSpace(e.Msg)
	short := e.Exc + ": " + msg
	// An exception that left a target call (the spy's note).
	if t := e.Target; t != nil && !t.Chained {
		shapeText := t.Msg + "\n" + strings.Join(t.Causes, "\n")
		switch {
		case t.Exc == "TypeError" && t.Bind != nil && !*t.Bind:
			cl, _ := c(pool.LabelWrongParam, "signature", "the signature of "+api+" rejected the arguments: "+short)
			cl.SigError = true
			return cl, true
		case t.Exc == "TypeError" && t.Depth == 0 && paramMsgRE.MatchString(t.Msg):
			cl, _ := c(pool.LabelWrongParam, "call-site", api+" refused its arguments at the call: "+short)
			cl.SigError = true
			return cl, true
		case indexShapeExc[t.Exc] || shapeDtypeRE.MatchString(shapeText):
			return c(pool.LabelWrongShapeDtype, "target-shape-dtype", api+" rejected the structure, shape or dtype of its input: "+short)
		case t.Exc == "TypeError" && paramMsgRE.MatchString(t.Msg):
			cl, _ := c(pool.LabelWrongParam, "target-arguments", api+" refused its arguments: "+short)
			cl.SigError = true
			return cl, true
		case t.Exc == "TypeError", t.Exc == "AttributeError" && objectAttrRE.MatchString(t.Msg):
			// The arguments bound; an operation inside the target refused
			// the type of one of them (a list where a number goes), or
			// looked up an attribute its type lacks (a list where an
			// expression goes: 'list' object has no attribute 'expand').
			return c(pool.LabelWrongShapeDtype, "target-input-type", api+" rejected the type of its input: "+short)
		default:
			return c(pool.LabelWrongParam, "target-raised", api+" raised on its arguments: "+short)
		}
	}
	switch e.Exc {
	case "ModuleNotFoundError", "ImportError":
		if e.Phase == "test" && !e.Remote {
			break
		}
		mod := deref(e.Name)
		from := deref(e.NameFrom)
		if from == "" {
			// "cannot import name 'X' from 'm'" without name_from (older Pythons).
			if m := cannotImportRE.FindStringSubmatch(msg); m != nil {
				from = m[1]
			}
		}
		switch {
		case !spyOn:
			cl, _ := c(pool.LabelWrongImport, "import", "an import failed: "+short)
			cl.Nonexistent = true
			return cl, true
		case from != "" && f.ofLibrary(mod) && !f.nearTarget(from):
			cl, _ := c(pool.LabelWrongAPISelection, "invented-import", "imported a name "+topPackage(mod)+" does not have: "+short)
			cl.Nonexistent = true
			return cl, true
		case f.ofLibrary(mod) || (from != "" && f.nearTarget(from)):
			cl, _ := c(pool.LabelWrongImport, "import", "the import of "+api+"'s module or name failed: "+short)
			cl.Nonexistent = true
			return cl, true
		default:
			cl, _ := c(pool.LabelWrongAPISelection, "other-library", "imported a module other than "+api+"'s library: "+short)
			cl.Nonexistent = true
			return cl, true
		}
	case "AttributeError":
		name := deref(e.Name)
		mod := deref(e.ObjModule)
		if m := attrOfModuleRE.FindStringSubmatch(msg); m != nil {
			mod, name = m[1], m[2]
		}
		isModule := strings.HasPrefix(msg, "module '")
		switch {
		case isModule && spyOn && f.ofLibrary(mod) && f.nearTarget(name):
			cl, _ := c(pool.LabelWrongImport, "module-path", "reached "+api+" through the wrong path: "+short)
			cl.Nonexistent = true
			return cl, true
		case isModule && (!spyOn || f.ofLibrary(mod)):
			cl, _ := c(pool.LabelWrongAPISelection, "invented-attribute", "called a name "+topPackage(mod)+" does not have: "+short)
			cl.Nonexistent = true
			return cl, true
		case spyOn && !called && f.nearTarget(name):
			return c(pool.LabelWrongImport, "target-path", "looked "+api+" up where it is not: "+short)
		}
	case "NameError":
		name := deref(e.Name)
		if m := nameErrorRE.FindStringSubmatch(short); name == "" && m != nil {
			name = m[1]
		}
		if name != "" && (f.nearTarget(name) || f.ofLibrary(name) || aliasOnPath(f.Code, name, f.Task.Leaf())) {
			return c(pool.LabelWrongImport, "unbound-name", "'"+name+"' (a name of "+api+"'s path) was never imported: "+short)
		}
	}
	switch {
	case e.Phase == "test" && strings.Contains(msg, "no call to the target API reproduces reference call") && strings.Contains(msg, "arguments differ"):
		return c(pool.LabelWrongParam, "call-record-args", "target called with arguments the reference does not use: "+msg)
	case e.Phase == "test" && strings.Contains(msg, "no call to the target API reproduces reference call"):
		return c(pool.LabelWrongLogic, "call-record-return", "target called, but "+msg)
	case spyOn && !called:
		if raisedInLibrary(e) || (e.Exc == "TypeError" && paramMsgRE.MatchString(msg)) || f.libraryCallRaised(e) {
			return c(pool.LabelWrongAPISelection, "other-api-raised", "another API raised and the spy saw no call of "+api+": "+short)
		}
		if e.Phase == "test" && e.Exc == "AssertionError" {
			return c(pool.LabelWrongAPISelection, "not-called", "the spy saw no call of "+api)
		}
		cl, _ := c(pool.LabelWrongLogic, "crash-before-target", "the completion's own code raised before calling "+api+": "+short)
		cl.Weak = true
		return cl, true
	case !spyOn && (e.Phase == "solution" || e.Remote) && raisedInLibrary(e):
		switch {
		case e.Exc == "TypeError" && paramMsgRE.MatchString(msg):
			return c(pool.LabelWrongParam, "library-signature", "a library call refused its arguments: "+short)
		case indexShapeExc[e.Exc] || shapeDtypeRE.MatchString(msg):
			return c(pool.LabelWrongShapeDtype, "library-shape-dtype", "a library call rejected the shape or dtype of its input: "+short)
		case e.Exc == "TypeError" || e.Exc == "ValueError" || e.Exc == "KeyError":
			return c(pool.LabelWrongParam, "library-raised", "a library call raised on its arguments: "+short)
		}
	case !spyOn && e.Exc == "TypeError" && paramMsgRE.MatchString(msg) && (e.Phase == "solution" || e.Remote):
		return c(pool.LabelWrongParam, "library-signature", "a call refused its arguments: "+short)
	}
	if e.Phase == "test" && e.Exc == "AssertionError" {
		return c(pool.LabelWrongLogic, "assertion", "the test's assertion failed: "+short)
	}
	if e.Phase == "test" && !e.Remote {
		return c(pool.LabelWrongLogic, "test-raised", "the test raised on the completion's result: "+short)
	}
	if called {
		return c(pool.LabelWrongLogic, "crash-after-target", "the target was called; then the surrounding code raised "+short)
	}
	cl, _ := c(pool.LabelWrongLogic, "crash", "the completion's code raised "+short)
	cl.Weak = true
	return cl, true
}

// objectAttrRE matches an AttributeError on an instance (not a module):
// "'list' object has no attribute 'expand'".
var objectAttrRE = regexp.MustCompile(`^'[\w.]+' object has no attribute `)

var cannotImportRE = regexp.MustCompile(`cannot import name '(\w+)'`)

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// aliasOnPath reports whether code reaches leaf through name
// ("np.linalg.leaf": np was never bound).
func aliasOnPath(code, name, leaf string) bool {
	if leaf == "" {
		return false
	}
	re, err := regexp.Compile(`\b` + regexp.QuoteMeta(name) + `(?:\.\w+)*\.` + regexp.QuoteMeta(leaf) + `\b`)
	return err == nil && re.MatchString(code)
}

// taxonomyName checks a Config.Taxonomy value ("" is the default).
func taxonomyName(s string) (string, error) {
	switch s {
	case "":
		return TaxonomyRuntime, nil
	case TaxonomyRuntime, TaxonomyProtocol:
		return s, nil
	}
	return "", fmt.Errorf("evalharness: unknown taxonomy %q (want %s)", s, strings.Join(Taxonomies, " or "))
}

// libraryCallRaised reports whether the completion's line where e arose
// (its innermost frame in the completion) calls a name the completion or
// the context imported from the target's library: a function of the
// library implemented in C raised there.
func (f *failureFacts) libraryCallRaised(e *excRecord) bool {
	if f.Recs == nil {
		return false
	}
	for i := len(e.Frames) - 1; i >= 0; i-- {
		fr := e.Frames[i]
		if fr.File != scriptName {
			continue
		}
		p, n, ok := partLine(f.Recs.Layout, fr.Line)
		if !ok || p.Name != "solution" {
			return false
		}
		lines := strings.Split(f.Code, "\n")
		if n < 1 || n > len(lines) {
			return false
		}
		for _, name := range f.libraryNames() {
			if regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*[.(]`).MatchString(lines[n-1]) {
				return true
			}
		}
		return false
	}
	return false
}

var importBindRE = regexp.MustCompile(`(?m)^\s*(?:import\s+([\w.]+)(?:\s+as\s+(\w+))?|from\s+([\w.]+)\s+import\s+\(?([\w\s,]+)\)?)`)

// libraryNames are the names the completion and the context bind by
// importing from the target's library (module aliases and imported names).
func (f *failureFacts) libraryNames() []string {
	var out []string
	for _, m := range importBindRE.FindAllStringSubmatch(f.Task.ContextCode+"\n"+f.Code, -1) {
		switch {
		case m[1] != "" && f.ofLibrary(m[1]):
			if m[2] != "" {
				out = append(out, m[2])
			} else {
				out = append(out, topPackage(m[1]))
			}
		case m[3] != "" && f.ofLibrary(m[3]):
			for _, part := range strings.Split(m[4], ",") {
				fs := strings.Fields(part)
				if len(fs) > 0 {
					out = append(out, fs[len(fs)-1])
				}
			}
		}
	}
	return out
}
