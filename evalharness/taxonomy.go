package evalharness

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/novelapi/novelapi/pool"
)

// Failure taxonomy, docs/protocol.md §5.2: the protocol's
// deterministic rules first, then novelapi's rules from the structured
// exception and spy records (rule names "novelapi:*"), then the optional
// LLM judge, then the protocol's fallback.

// StderrKeep is how much stderr the protocol keeps: the first 4,096 chars
// (§4.6, §9.7).
const StderrKeep = 4096

var (
	excTypeRE      = regexp.MustCompile(`(?m)^([A-Z][A-Za-z_]*(?:Error|Exception|Warning|Interrupt))\b`)
	notCalledRE    = regexp.MustCompile(`(?i)AssertionError:\s*solution did not call target API`)
	nameErrorRE    = regexp.MustCompile(`NameError: name '([^']*)' is not defined`)
	shapeDtypeRE   = regexp.MustCompile(`(?i)shape|dtype|broadcast|dimension|ndim|\baxis\b|rank|\blength\b|mismatch|size \d|of size|columns?\b|schema|cast|ufunc|not supported for the input types|could not convert|non-numeric|numeric|resolved dtypes|item wrong length|invalid type promotion|real numbers?\b|must be (?:real|numeric|an array of)|\b\d-d\b`)
	paramMsgRE     = regexp.MustCompile(`unexpected keyword|positional argument|required (?:positional|keyword)|takes (?:\d+|exactly|at most|at least|no)|got multiple values|missing \d+ required|keyword argument|argument '|expected (?:at most |at least )?\d+ arguments?, got \d+`)
	attrOfModuleRE = regexp.MustCompile(`module '([\w.]+)' has no attribute '(\w+)'`)
)

// truncateRunes returns the first n code points of s.
func truncateRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// lastRunes returns the last n code points of s.
func lastRunes(s string, n int) string {
	c := utf8.RuneCountInString(s)
	if c <= n {
		return s
	}
	for j := range s {
		if c == n {
			return s[j:]
		}
		c--
	}
	return s
}

// exceptionType is §4.7's exception_type: the last line of stderr that
// starts with a capitalised XxxError/Exception/Warning/Interrupt name.
func exceptionType(stderr string) string {
	m := excTypeRE.FindAllStringSubmatch(stderr, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// errorSnippet is stderr.strip()[-500:] (§4.7).
func errorSnippet(stderr string) string { return lastRunes(pyStrip(stderr), 500) }

// failureFacts is what the classifier knows about one failed run.
type failureFacts struct {
	Task     *pool.Task
	Code     string // extracted completion
	Stderr   string // first StderrKeep chars
	ExcType  string // exceptionType(Stderr), or "Timeout"
	TimedOut bool
	Recs     *runRecords // nil when the run left none
	// CodeLost says the runner's records were lost with the run (a wall
	// timeout): Code is runOutcome.lostCode's stand-in, and CodeEmpty
	// says whether the response holds no code at all.
	CodeLost, CodeEmpty bool
	// Tamper is why the run is HARNESS_TAMPER ("" otherwise).
	Tamper string
	// Status is the run's docs/sandbox.md §4.1 status.
	Status string
}

// tamperClass is novelapi's rule for HARNESS_TAMPER (docs/sandbox.md §4.1
// item 7), applied before every other rule: the completion ended the
// evaluation early (sys.exit/os._exit before the test) or wrote the
// monitor's state, so no test verdict exists. The protocol has no tamper
// label; it is WrongAPISelection when the spy saw no target call during
// the completion (§5.1 "never called the target"), else WrongLogic (the
// target was called and the surrounding program is wrong).
func tamperClass(f *failureFacts) classification {
	called := f.Recs != nil && f.Recs.Spy != nil && f.Recs.Spy.Count > 0
	if called {
		return classification{Label: pool.LabelWrongLogic, Rule: "novelapi:harness-tamper", Rationale: clip("harness tamper: " + f.Tamper + "; the target was called but the test verdict was prevented")}
	}
	return classification{Label: pool.LabelWrongAPISelection, Rule: "novelapi:harness-tamper", Rationale: clip("harness tamper: " + f.Tamper + "; the completion never called the target API " + f.Task.APIName)}
}

// classification is a label with its rule and rationale.
type classification struct {
	Label, Rule, Rationale string
	Nonexistent, SigError  bool
	// Weak marks a runtime label that rests on no evidence about the
	// target (an exception in the completion's own code before any target
	// call): the judge, when configured, decides instead.
	Weak bool
}

func clip(s string) string { return truncateRunes(s, 240) }

// topPackage returns the first dotted segment.
func topPackage(name string) string {
	top, _, _ := strings.Cut(name, ".")
	return top
}

// targetMentioned is the protocol's textual test (§5.2): the leaf occurs
// in the code.
func targetMentioned(code, leaf string) bool { return leaf != "" && strings.Contains(code, leaf) }

// subclassifyAPI is the protocol's deterministic split of a W_API verdict
// (§5.2 step 4), with api_called = targetMentioned.
func subclassifyAPI(exc, rationale, leaf string, apiCalled bool) string {
	r := strings.ToLower(rationale)
	switch {
	case exc == "SyntaxError" || exc == "IndentationError" ||
		strings.Contains(r, "empty stub") || strings.Contains(r, "pass-only") || strings.Contains(r, "pass only"):
		return pool.LabelWrongSyntax
	case exc == "NameError" || exc == "ImportError" || exc == "ModuleNotFoundError":
		if apiCalled || (leaf != "" && strings.Contains(r, strings.ToLower(leaf))) || strings.Contains(r, "target api symbol") {
			return pool.LabelWrongImport
		}
		return pool.LabelWrongAPISelection
	case apiCalled:
		if exc == "AssertionError" {
			return pool.LabelWrongAPISelection
		}
		if exc == "AttributeError" && leaf != "" && strings.Contains(r, strings.ToLower(leaf)) {
			return pool.LabelWrongAPISelection
		}
		return pool.LabelWrongImport
	}
	return pool.LabelWrongAPISelection
}

// protocolRules applies §5.2 step 2 (a)-(c); ok is false when none applies.
func protocolRules(f *failureFacts) (classification, bool) {
	leaf := f.Task.Leaf()
	switch {
	case notCalledRE.MatchString(f.Stderr):
		return classification{Label: pool.LabelWrongAPISelection, Rule: "protocol:5.2a", Rationale: "the completion never called the target API " + f.Task.APIName}, true
	case f.ExcType == "SyntaxError" || f.ExcType == "IndentationError":
		return classification{Label: pool.LabelWrongSyntax, Rule: "protocol:5.2b", Rationale: clip(f.ExcType + ": the completion does not compile")}, true
	}
	if m := nameErrorRE.FindStringSubmatch(f.Stderr); m != nil && f.Task.SpyNeeded() && (m[1] == leaf || m[1] == topPackage(f.Task.APIName)) {
		rat := fmt.Sprintf("NameError on target API symbol '%s' — model did not import the call", m[1])
		return classification{Label: subclassifyAPI(f.ExcType, rat, leaf, targetMentioned(f.Code, leaf)), Rule: "protocol:5.2c", Rationale: clip(rat)}, true
	}
	return classification{}, false
}

// fallbackClass is the protocol's judge fallback (§5.2 step 3): W_LOGIC
// if the leaf occurs in the code, else W_API, sub-classified.
func fallbackClass(f *failureFacts, why string) classification {
	leaf := f.Task.Leaf()
	if targetMentioned(f.Code, leaf) {
		return classification{Label: pool.LabelWrongLogic, Rule: "fallback", Rationale: clip(why + "; target mentioned in the code")}
	}
	rat := why + "; target not mentioned in the code"
	return classification{Label: subclassifyAPI(f.ExcType, rat, leaf, false), Rule: "fallback", Rationale: clip(rat)}
}
