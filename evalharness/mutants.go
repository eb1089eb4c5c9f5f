package evalharness

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/internal/pysyntax"
	"github.com/novelapi/novelapi/pool"
)

// A Mutant is a broken variant of a task's reference completion with the
// failure label the taxonomy should give it, so that the taxonomy is
// validated by mutation.
type Mutant struct {
	Name string `json:"name"` // empty, syntax, import-removed, keyword-renamed, sibling-api, bad-input, logic-broken
	Code string `json:"code"` // the response to evaluate
	Want string `json:"want"` // expected label
}

// MutationHint supplies what a generic text mutation cannot guess for an
// API: a sibling API leaf to call instead, and an expression template
// ("{arg}" = the target call's first argument) giving an input of the
// wrong shape or dtype.
type MutationHint struct {
	Sibling  string
	BadInput string
}

// MutationHints holds the hints for known APIs; callers may add to it
// before calling Mutants (not concurrently).
var MutationHints = map[string]MutationHint{
	"numpy.unstack":                 {Sibling: "split", BadInput: "{arg}[0, 0]"},
	"numpy.cumulative_sum":          {Sibling: "cumsum", BadInput: "{arg}.astype(str)"},
	"numpy.cumulative_prod":         {Sibling: "cumprod", BadInput: "{arg}.astype(str)"},
	"numpy.linalg.vecdot":           {Sibling: "matmul", BadInput: "{arg}[:, :2]"},
	"numpy.linalg.matrix_norm":      {Sibling: "vector_norm", BadInput: "{arg}[0, 0]"},
	"numpy.matrix_transpose":        {Sibling: "transpose", BadInput: "{arg}[0, 0]"},
	"scipy.stats.lmoment":           {Sibling: "moment", BadInput: "{arg}.astype(str)"},
	"scipy.special.softplus":        {Sibling: "expit", BadInput: "{arg}.astype(str)"},
	"pandas.Series.case_when":       {Sibling: "mask", BadInput: "{arg}.iloc[:2]"},
	"scipy.stats.make_distribution": {},
}

var (
	importLineRE = regexp.MustCompile(`(?m)^[ \t]*(?:import|from)[ \t]+\S.*$`)
	assignRE     = regexp.MustCompile(`(?m)^([A-Za-z_]\w*)\s*=[^=]`)
	identRE      = regexp.MustCompile(`^[A-Za-z_]\w*$`)
)

// targetCall locates the first call of the leaf in code: start of the
// dotted reference, the open paren and the matching close paren.
func targetCall(code, leaf string) (refStart, open, close int, ok bool) {
	re := regexp.MustCompile(`([A-Za-z_][\w.]*\.)?\b` + regexp.QuoteMeta(leaf) + `\s*\(`)
	loc := re.FindStringIndex(code)
	if loc == nil {
		return 0, 0, 0, false
	}
	open = loc[1] - 1
	if end := pysyntax.MatchBracket(code, open); end >= 0 {
		return loc[0], open, end, true
	}
	return 0, 0, 0, false
}

// splitArgs splits the argument text of a call at top-level commas,
// trimming each argument and dropping a trailing empty one.
func splitArgs(s string) []string {
	var out []string
	for _, a := range pysyntax.SplitTopLevel(s) {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

var kwArgRE = regexp.MustCompile(`^([A-Za-z_]\w*)\s*=[^=]`)

// Mutants returns the mutants of task's reference completion
// (masked_region) that apply to it, each with the label it should get.
// Mutations that cannot be made for the task (no keyword argument, no
// known sibling, a target whose parent module is always bound) are left
// out.
func Mutants(task *pool.Task) []Mutant {
	code := strings.TrimSpace(task.MaskedRegion)
	leaf := task.Leaf()
	// An empty response is an empty stub (§5.1), WrongSyntax under the
	// runtime taxonomy (the protocol's rule (a) says WrongAPISelection).
	out := []Mutant{{Name: "empty", Code: "", Want: pool.LabelWrongSyntax}}
	refStart, open, closeP, ok := targetCall(code, leaf)
	if !ok {
		return out
	}
	// syntax: the body of a function pasted at top level (ast.parse accepts
	// a top-level return, compile does not; §9.1).
	ret := "None"
	if m := assignRE.FindAllStringSubmatch(code, -1); len(m) > 0 {
		ret = m[len(m)-1][1]
	}
	out = append(out, Mutant{Name: "syntax", Code: code + "\nreturn " + ret, Want: pool.LabelWrongSyntax})

	hint := MutationHints[task.APIName]
	parent := task.APIName[:max(0, strings.LastIndexByte(task.APIName, '.'))]
	segs := strings.Split(parent, ".")
	last := segs[len(segs)-1]
	// import-removed: reach the target through its module's name without
	// importing it.
	if len(segs) > 1 && identRE.MatchString(last) && strings.ToLower(last[:1]) == last[:1] &&
		!regexp.MustCompile(`\b`+regexp.QuoteMeta(last)+`\b`).MatchString(task.ContextCode) {
		body := code[:refStart] + last + "." + code[open-len(leafCallPrefix(code[refStart:open], leaf)):]
		body = importLineRE.ReplaceAllString(body, "")
		out = append(out, Mutant{Name: "import-removed", Code: strings.TrimSpace(body), Want: pool.LabelWrongImport})
	}
	args := splitArgs(code[open+1 : closeP])
	for _, a := range args {
		if m := kwArgRE.FindStringSubmatch(a); m != nil {
			i := strings.Index(code[open:closeP], m[1]) + open
			out = append(out, Mutant{Name: "keyword-renamed", Code: code[:i] + m[1] + "_renamed" + code[i+len(m[1]):], Want: pool.LabelWrongParam})
			break
		}
	}
	if hint.Sibling != "" {
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(leaf) + `\b`)
		out = append(out, Mutant{Name: "sibling-api", Code: re.ReplaceAllString(code, hint.Sibling), Want: pool.LabelWrongAPISelection})
	}
	// The first positional argument, else the receiver of a method call.
	first := ""
	for _, a := range args {
		if !kwArgRE.MatchString(a) && !strings.HasPrefix(a, "*") {
			first = a
			break
		}
	}
	prefix := strings.TrimSuffix(code[refStart:open], leaf)
	prefix = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(prefix), "."))
	receiver := identRE.MatchString(prefix) && !regexp.MustCompile(`(?m)^\s*(?:import\s+\S+\s+as\s+|import\s+|from\s+\S+\s+import\s+.*\b)`+regexp.QuoteMeta(prefix)+`\b`).MatchString(task.ContextCode+"\n"+code)
	if hint.BadInput != "" {
		switch {
		case first != "" && !receiver:
			i := strings.Index(code[open:closeP], first) + open
			bad := strings.ReplaceAll(hint.BadInput, "{arg}", "("+first+")")
			out = append(out, Mutant{Name: "bad-input", Code: code[:i] + bad + code[i+len(first):], Want: pool.LabelWrongShapeDtype})
		case receiver:
			bad := strings.ReplaceAll(hint.BadInput, "{arg}", prefix)
			// Shrink the data the conditions are computed from, keeping the receiver.
			out = append(out, Mutant{Name: "bad-input", Code: fmt.Sprintf("%s_short = %s\n", prefix, bad) + regexp.MustCompile(`\(`+regexp.QuoteMeta(prefix)+`\b`).ReplaceAllString(code, "("+prefix+"_short"), Want: pool.LabelWrongShapeDtype})
		}
	}
	// logic-broken: the data is transformed before the call, so the call
	// no longer reproduces the reference.
	v := first
	if receiver {
		v = prefix
	}
	if identRE.MatchString(v) {
		out = append(out, Mutant{Name: "logic-broken", Code: fmt.Sprintf("%s = %s * 2 + 1\n%s", v, v, code), Want: pool.LabelWrongLogic})
	}
	return out
}

// leafCallPrefix returns the leaf as it appears before the paren (the
// reference may carry spaces before "(").
func leafCallPrefix(ref, leaf string) string {
	i := strings.LastIndex(ref, leaf)
	if i < 0 {
		return ref
	}
	return ref[i:]
}
