package evalharness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/novelapi/novelapi/pool"
)

// The mutation suite of the failure taxonomy (docs/protocol.md §5.2,
// docs/mutants.md §6): each task's reference is broken in one known way,
// each way with the label §5.1 gives it, and the agreement of each
// taxonomy with those labels is counted per label.

// Label mutant kinds, in the order LabelMutants makes them.
const (
	KindEmpty          = "empty"            // WrongSyntax: an empty response, an empty stub
	KindProse          = "prose"            // WrongSyntax: an answer in words, no code
	KindSyntaxError    = "syntax-error"     // WrongSyntax: a top-level return
	KindSiblingAPI     = "sibling-api"      // WrongAPISelection: another function of the target's module
	KindMisspeltImport = "misspelt-import"  // WrongImport: the library's name with two letters swapped
	KindWrongKeyword   = "wrong-keyword"    // WrongParam: a keyword of the target call misspelt
	KindWrongShape     = "wrong-shape"      // WrongShapeDtype: the target's first argument as a ragged nested list
	KindConstantReturn = "constant-return"  // WrongLogic: the target is called, the answer replaced by None
	KindRaiseAfterCall = "raise-after-call" // WrongLogic: the target is called, then the code raises
)

// LabelMutantKinds lists the kinds with their intended labels.
var LabelMutantKinds = []struct{ Kind, Want string }{
	{KindEmpty, pool.LabelWrongSyntax}, {KindProse, pool.LabelWrongSyntax}, {KindSyntaxError, pool.LabelWrongSyntax},
	{KindSiblingAPI, pool.LabelWrongAPISelection}, {KindMisspeltImport, pool.LabelWrongImport},
	{KindWrongKeyword, pool.LabelWrongParam}, {KindWrongShape, pool.LabelWrongShapeDtype},
	{KindConstantReturn, pool.LabelWrongLogic}, {KindRaiseAfterCall, pool.LabelWrongLogic},
}

func wantOf(kind string) string {
	for _, k := range LabelMutantKinds {
		if k.Kind == kind {
			return k.Want
		}
	}
	return ""
}

// swapLetters misspells a module name: its first two letters after the
// first swapped ("numpy" → "nmupy"), or its two letters swapped ("re").
func swapLetters(s string) string {
	r := []rune(s)
	switch {
	case len(r) >= 3 && r[1] != r[2]:
		r[1], r[2] = r[2], r[1]
	case len(r) >= 2:
		r[0], r[1] = r[1], r[0]
	}
	return string(r)
}

// LabelMutants returns the label mutants of task's reference (its masked
// region): every kind of LabelMutantKinds that applies, Name the kind and
// Want its label. sibling is a public function of the target's module to
// call instead ("" leaves sibling-api out). A kind that needs a call of
// the target the text does not show, a keyword the call lacks, or a
// variable or entry point to replace is left out.
func LabelMutants(task *pool.Task, sibling string) []Mutant {
	code := strings.TrimSpace(task.MaskedRegion)
	leaf := task.Leaf()
	add := func(out []Mutant, kind, code string) []Mutant {
		return append(out, Mutant{Name: kind, Code: code, Want: wantOf(kind)})
	}
	out := add(nil, KindEmpty, "")
	out = add(out, KindProse, "To solve this, call "+leaf+" on the input data and return what it gives.")
	out = add(out, KindSyntaxError, code+"\nreturn None")
	top := topPackage(task.APIName)
	if bad := swapLetters(top); bad != top {
		re := regexp.MustCompile(`(?m)^(\s*(?:import|from)\s+)` + regexp.QuoteMeta(top) + `\b`)
		if loc := re.FindStringSubmatchIndex(code); loc != nil {
			out = add(out, KindMisspeltImport, code[:loc[3]]+bad+code[loc[3]+len(top):])
		} else {
			out = add(out, KindMisspeltImport, "import "+bad+"\n"+code)
		}
	}
	if sibling != "" && sibling != leaf {
		out = add(out, KindSiblingAPI, regexp.MustCompile(`\b`+regexp.QuoteMeta(leaf)+`\b`).ReplaceAllString(code, sibling))
	}
	refStart, open, closeP, ok := targetCall(code, leaf)
	if ok {
		args := splitArgs(code[open+1 : closeP])
		for _, a := range args {
			if m := kwArgRE.FindStringSubmatch(a); m != nil {
				bad := m[1] + "s"
				if strings.HasSuffix(m[1], "s") {
					bad = strings.TrimSuffix(m[1], "s")
				}
				i := strings.Index(code[open:closeP], a) + open
				out = add(out, KindWrongKeyword, code[:i]+bad+code[i+len(m[1]):])
				break
			}
		}
		prefix := strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(code[refStart:open]), leaf)), ".")
		if len(args) > 0 && !kwArgRE.MatchString(args[0]) && !strings.HasPrefix(args[0], "*") && moduleRef(task, code, prefix) {
			a := args[0]
			i := strings.Index(code[open:closeP], a) + open
			out = add(out, KindWrongShape, code[:i]+"[["+a+", "+a+"], ["+a+"]]"+code[i+len(a):])
		}
	}
	if e := task.EntryPoint; e != "" && task.SpyScope == pool.SpyScopeEntryPoint {
		wrap := func(then string) string {
			return fmt.Sprintf("%s\n\n_mutant_%s = %s\n\ndef %s(*args, **kwargs):\n    _mutant_%s(*args, **kwargs)\n    %s\n", code, e, e, e, e, then)
		}
		out = add(out, KindConstantReturn, wrap("return None"))
		out = add(out, KindRaiseAfterCall, wrap("raise RuntimeError('raised after the call')"))
	} else if m := assignRE.FindAllStringSubmatch(code, -1); len(m) > 0 && ok {
		out = add(out, KindConstantReturn, code+"\n"+m[len(m)-1][1]+" = None")
		out = add(out, KindRaiseAfterCall, code+"\nraise RuntimeError('raised after the call')")
	}
	return out
}

// moduleRef reports whether prefix, the text before ".leaf(" in code,
// names the target's module rather than a value (a method call's
// receiver): empty (a bare call), a segment path of the target's parent,
// or a name that code or the context imports.
func moduleRef(task *pool.Task, code, prefix string) bool {
	if prefix == "" {
		return true
	}
	parent := task.APIName[:max(0, strings.LastIndexByte(task.APIName, '.'))]
	if parent == prefix || strings.HasSuffix(parent, "."+prefix) {
		return true
	}
	if !identRE.MatchString(prefix) {
		return false
	}
	re := regexp.MustCompile(`(?m)^\s*(?:import\s+[\w.]+\s+as\s+` + regexp.QuoteMeta(prefix) + `\b|import\s+` + regexp.QuoteMeta(prefix) + `\b|from\s+[\w.]+\s+import\s+(?:[\w, ]*\s+as\s+)?` + regexp.QuoteMeta(prefix) + `\b)`)
	return re.MatchString(task.ContextCode + "\n" + code)
}

// siblingsProgram prints, as JSON, for each [parent, leaf], the public
// function of parent most similar to leaf (difflib) that is no slip of
// it: more than 2 edits apart with transpositions (misspelt's measure),
// and neither name containing the other.
const siblingsProgram = `import importlib, difflib, json


def osa(a, b):
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            c = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + c)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


out = {}
for parent, leaf in %s:
    try:
        obj, parts = None, parent.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
                break
            except ImportError:
                continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        names = [n for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n, None))
                 and not isinstance(getattr(obj, n, None), type)]
        for n in difflib.get_close_matches(leaf, names, n=60, cutoff=0):
            if leaf not in n and n not in leaf and osa(n.lower(), leaf.lower()) > 2:
                out[parent + "." + leaf] = n
                break
    except Exception:
        pass
print("SIBLINGS " + json.dumps(out, separators=(",", ":")))
`

// Siblings picks, for each target API, a public function of its parent
// module to call instead (siblingsProgram), running one program in
// library's environment. An API whose parent does not resolve there has
// none.
func (h *Harness) Siblings(ctx context.Context, library string, apis []string) (map[string]string, error) {
	var pairs [][2]string
	for _, a := range apis {
		if i := strings.LastIndexByte(a, '.'); i > 0 {
			pairs = append(pairs, [2]string{a[:i], a[i+1:]})
		}
	}
	arg, _ := json.Marshal(pairs)
	cr, err := h.CheckCode(ctx, fmt.Sprintf(siblingsProgram, arg), "builtins.print", library)
	if err != nil {
		return nil, err
	}
	i := strings.LastIndex(cr.Stdout, "SIBLINGS ")
	if i < 0 {
		return nil, fmt.Errorf("evalharness: listing siblings: no answer (%s %s: %s)", cr.Status, cr.ExceptionType, cr.Message)
	}
	out := map[string]string{}
	if err := json.Unmarshal([]byte(strings.TrimSpace(cr.Stdout[i+len("SIBLINGS "):])), &out); err != nil {
		return nil, fmt.Errorf("evalharness: listing siblings: %w", err)
	}
	return out, nil
}

// EvaluateLabels is Evaluate that also labels the failure under each
// taxonomy of Taxonomies, from the same run (map taxonomy → label; empty
// when the run passed or hit an infrastructure error).
func (h *Harness) EvaluateLabels(ctx context.Context, task *pool.Task, expected *pool.ExpectedCalls, response string) (Verdict, map[string]string, error) {
	job, err := evalJob(task, expected)
	if err != nil {
		return Verdict{Status: pool.StatusInfraError, InfraError: err.Error()}, nil, err
	}
	job.setResponse(response)
	env, err := h.environment(task)
	if err != nil {
		return Verdict{Status: pool.StatusInfraError, InfraError: err.Error()}, nil, err
	}
	out, err := h.execWithRetry(ctx, env, job, task.Timeout())
	if err != nil {
		return Verdict{Status: pool.StatusInfraError, InfraError: out.Res.InfraError}, nil, err
	}
	v := h.verdict(ctx, task, out, true)
	labels := map[string]string{}
	for _, tax := range Taxonomies {
		hh := &Harness{cfg: h.cfg, log: h.log}
		hh.cfg.Taxonomy = tax
		labels[tax] = hh.verdict(ctx, task, out, true).Label
	}
	return v, labels, nil
}

// SuiteConfig configures MutationSuite.
type SuiteConfig struct {
	Harness  *Harness
	Tasks    []*pool.Task
	Expected map[string]*pool.ExpectedCalls
	// Siblings maps a target API to the function sibling-api calls
	// instead (Harness.Siblings); a task without one has no such mutant.
	Siblings map[string]string
	// Workers runs that many evaluations at once; 0 means 2.
	Workers int
}

// maxMisses bounds SuiteReport.Misses: enough for every disagreement of a
// whole pool (bench/labels.sh), bounded for a pathological taxonomy.
const maxMisses = 1000

// SuiteReport is what MutationSuite measured.
type SuiteReport struct {
	Tasks int `json:"tasks"`
	// ReferencesPassed counts the tasks whose reference passed; only their
	// mutants are counted.
	ReferencesPassed int `json:"references_passed"`
	// SpyOffPassed counts the references that pass with the spy off (the
	// task without its monitor and check block, SpyOff); SpyDiffers lists
	// the tasks whose reference verdict differs between the two.
	SpyOffPassed int      `json:"spy_off_passed"`
	SpyDiffers   []string `json:"spy_differs"`
	// Kinds counts, per mutant kind: made, failed (labelled), passed (a
	// mutant the test cannot tell from the reference; left out) and
	// infra (no verdict).
	Kinds map[string]*KindCount `json:"kinds"`
	// Confusion counts, per taxonomy, intended label → given label.
	Confusion map[string]map[string]map[string]int `json:"confusion"`
	// Misses lists up to maxMisses disagreements of the runtime taxonomy.
	Misses []SuiteMiss `json:"misses"`
}

// KindCount counts one kind's mutants. Accepted counts wrong-keyword and
// wrong-shape mutants that failed although the target did not raise (it
// took the misspelt keyword through **kwargs, or the ragged input): not
// failures of that kind, so left out like the passed ones.
type KindCount struct {
	Made, Failed, Passed, Accepted, Infra int
}

// A SuiteMiss is a mutant whose runtime label was not the intended one.
type SuiteMiss struct {
	Task, Kind, Want, Got, Rule, Rationale string
}

// Agreement returns, for taxonomy tax and intended label want, the
// mutants labelled want and the number of mutants with that intent.
func (r *SuiteReport) Agreement(tax, want string) (agree, n int) {
	for got, c := range r.Confusion[tax][want] {
		n += c
		if got == want {
			agree += c
		}
	}
	return agree, n
}

// SpyOff returns a copy of t without the spy: spy_required false, the
// test without the monitor's check block (what precedes
// pool.EndCheckMarker) and without a deferred call check.
func SpyOff(t *pool.Task) *pool.Task {
	c := *t
	off := false
	c.SpyRequired = &off
	test := c.TestHarness.ExecutionTest
	if _, after, ok := strings.Cut(test, pool.EndCheckMarker); ok {
		test = after
	}
	if i := strings.Index(test, "# --- deferred target-API call check ---"); i >= 0 {
		test = test[:i]
	}
	c.TestHarness.ExecutionTest = test
	return &c
}

// MutationSuite runs each task's reference and its label mutants
// (LabelMutants) and counts how each taxonomy labels the mutants that
// fail, for tasks whose reference passes.
func MutationSuite(ctx context.Context, cfg SuiteConfig) (*SuiteReport, error) {
	type item struct {
		task *pool.Task
		m    Mutant // Name "" for the reference
	}
	var items []item
	for _, t := range cfg.Tasks {
		// The reference and its mutants are in the real library's names.
		t := Untranslated(t)
		items = append(items, item{task: t, m: Mutant{Code: t.MaskedRegion}})
		if t.SpyNeeded() {
			items = append(items, item{task: SpyOff(t), m: Mutant{Name: "spy-off", Code: t.MaskedRegion}})
		}
		for _, m := range LabelMutants(t, cfg.Siblings[t.APIName]) {
			items = append(items, item{t, m})
		}
	}
	type res struct {
		v      Verdict
		labels map[string]string
		err    error
	}
	got := make([]res, len(items))
	workers := cfg.Workers
	if workers <= 0 {
		workers = 2
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				it := items[i]
				v, l, err := cfg.Harness.EvaluateLabels(ctx, it.task, cfg.Expected[it.task.TaskID], it.m.Code)
				got[i] = res{v, l, err}
			}
		})
	}
	for i := range items {
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep := &SuiteReport{Tasks: len(cfg.Tasks), Kinds: map[string]*KindCount{}, Confusion: map[string]map[string]map[string]int{}}
	refOK := map[string]bool{}
	for i, it := range items {
		if it.m.Name == "" && got[i].v.Passed {
			refOK[it.task.TaskID] = true
			rep.ReferencesPassed++
		}
	}
	for i, it := range items {
		if it.m.Name == "spy-off" {
			if got[i].v.Passed {
				rep.SpyOffPassed++
			}
			if got[i].v.Passed != refOK[it.task.TaskID] {
				rep.SpyDiffers = append(rep.SpyDiffers, it.task.TaskID)
			}
			continue
		}
		if it.m.Name == "" || !refOK[it.task.TaskID] {
			continue
		}
		k := rep.Kinds[it.m.Name]
		if k == nil {
			k = &KindCount{}
			rep.Kinds[it.m.Name] = k
		}
		k.Made++
		r := got[i]
		switch {
		case r.err != nil || r.v.Status == pool.StatusInfraError:
			k.Infra++
			continue
		case r.v.Passed:
			k.Passed++
			continue
		case (it.m.Name == KindWrongKeyword || it.m.Name == KindWrongShape) && !r.v.TargetRaised:
			k.Accepted++
			continue
		}
		k.Failed++
		for tax, label := range r.labels {
			if rep.Confusion[tax] == nil {
				rep.Confusion[tax] = map[string]map[string]int{}
			}
			if rep.Confusion[tax][it.m.Want] == nil {
				rep.Confusion[tax][it.m.Want] = map[string]int{}
			}
			rep.Confusion[tax][it.m.Want][label]++
		}
		if r.v.Label != it.m.Want && len(rep.Misses) < maxMisses {
			rep.Misses = append(rep.Misses, SuiteMiss{Task: it.task.TaskID, Kind: it.m.Name, Want: it.m.Want, Got: r.v.Label, Rule: r.v.Rule, Rationale: r.v.Rationale})
		}
	}
	return rep, nil
}

// WriteReport prints the kinds, the per-label agreement of each taxonomy
// and the confusion table of the runtime taxonomy.
func (r *SuiteReport) WriteReport(w io.Writer) {
	fmt.Fprintf(w, "label mutation suite: %d tasks, %d references pass (%d with the spy off; verdicts differ on %d)\n",
		r.Tasks, r.ReferencesPassed, r.SpyOffPassed, len(r.SpyDiffers))
	for _, id := range r.SpyDiffers {
		fmt.Fprintf(w, "spy on/off differ: %s\n", id)
	}
	fmt.Fprintf(w, "%-18s %6s %6s %6s %8s %6s  %s\n", "kind", "made", "failed", "passed", "accepted", "infra", "intended label")
	for _, k := range LabelMutantKinds {
		if c := r.Kinds[k.Kind]; c != nil {
			fmt.Fprintf(w, "%-18s %6d %6d %6d %8d %6d  %s\n", k.Kind, c.Made, c.Failed, c.Passed, c.Accepted, c.Infra, k.Want)
		}
	}
	fmt.Fprintf(w, "\nagreement with the intended label (failing mutants)\n%-18s", "label")
	taxes := slices.Clone(Taxonomies)
	for _, t := range taxes {
		fmt.Fprintf(w, " %18s", t)
	}
	fmt.Fprintln(w)
	for _, want := range pool.Labels {
		_, n := r.Agreement(TaxonomyRuntime, want)
		if n == 0 {
			continue
		}
		fmt.Fprintf(w, "%-18s", want)
		for _, t := range taxes {
			a, n := r.Agreement(t, want)
			fmt.Fprintf(w, " %8d/%-4d %4.0f%%", a, n, 100*float64(a)/float64(n))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nruntime taxonomy, intended (rows) by given (columns)\n%s", confusionTable(r.Confusion[TaxonomyRuntime]))
	for _, m := range r.Misses {
		fmt.Fprintf(w, "miss %s %s: want %s, got %s (%s: %s)\n", m.Task, m.Kind, m.Want, m.Got, m.Rule, m.Rationale)
	}
}

// confusionTable prints intended labels (rows) by given labels.
func confusionTable(c map[string]map[string]int) string {
	cols := append([]string{}, pool.Labels...)
	cols = append(cols, pool.LabelPass, "")
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s", "want \\ got")
	for _, col := range cols {
		name := col
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(&b, " %6.6s", strings.TrimPrefix(name, "Wrong"))
	}
	b.WriteString("\n")
	for _, want := range pool.Labels {
		if c[want] == nil {
			continue
		}
		fmt.Fprintf(&b, "%-18s", want)
		for _, col := range cols {
			fmt.Fprintf(&b, " %6d", c[want][col])
		}
		b.WriteString("\n")
	}
	return b.String()
}
