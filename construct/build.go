package construct

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/progress"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// Generator is recorded in Task.Generator for tasks built offline.
const Generator = "novelapi:taskgen/1"

// BuildConfig configures BuildTasks. Bundles, Env and Runner are required.
type BuildConfig struct {
	Bundles []bundles.Bundle
	Env     *sandbox.Environment // the new-release environment the examples ran in
	Runner  sandbox.Runner
	// MaxExamples is the number of executed examples used per API; 0 means 2.
	// For a signature-modified API up to ModifiedTries times as many are
	// tried, those mentioning a changed parameter (`name=`) first, and the
	// first MaxExamples that give a task are kept, those whose call
	// exercises the change first (see [SignatureChange]).
	MaxExamples int
	// ChangeOnly drops the tasks of signature-modified APIs whose call does
	// not exercise the change, or whose change is unknown (docs/protocol.md §7
	// Stage 3: "every task must exercise the change"). False keeps them,
	// marked exercises_change false.
	ChangeOnly bool
	// OldEnv, when set, is the old release's environment: each task of a
	// signature-modified API with a known change then runs its reference
	// solution and execution_test assertions there, and in Env as a
	// control, and the outcome decides Task.ExercisesChange (see
	// [Task.OldEnvCheck]): a task whose reference fails in the old release
	// but passes in the new one tells them apart, the protocol's "every task
	// must exercise the change" (§7 Stage 3) checked directly, unless it
	// fails there only because a module or name is missing
	// ([FailsElsewhere]), which keeps the static rule. Nil keeps the
	// static rule of [Change.Exercised].
	OldEnv *sandbox.Environment
	// Medium adds a medium-difficulty variant (the call inside a small
	// function with its own input validation) for each easy task whose call
	// uses context variables. Default true via BuildTasks' caller; the zero
	// value leaves it off.
	Medium bool
	// SkipMutantCheck leaves out the mutant check (docs/mutants.md): by
	// default every built task's reference and a fixed set of mutants run
	// against its test, and tasks whose test lets a mutant pass are
	// dropped.
	SkipMutantCheck bool
	// KeepWeak keeps the tasks whose test lets a mutant pass (they stay
	// flagged in the check file).
	KeepWeak bool
	// CheckPath is the check file the mutant check is recorded in
	// (evalharness.CheckPath of the pool); "" records nothing.
	CheckPath string
	// Workers is the number of concurrent sandbox runs; 0 means GOMAXPROCS.
	Workers int
	// Wall bounds one API's builder run; 0 means 60 s.
	Wall time.Duration
	// Progress receives a progress bar; nil means none.
	Progress io.Writer
	// Log receives skipped examples at debug level; nil means slog.Default().
	Log *slog.Logger
}

// BuildSummary counts what BuildTasks did.
type BuildSummary struct {
	APIs         int            `json:"apis"`          // bundles given
	WithExamples int            `json:"with_examples"` // bundles with an executed example
	Examples     int            `json:"examples"`      // examples tried
	Tasks        int            `json:"tasks"`
	ByDifficulty map[string]int `json:"by_difficulty"`
	ByLibrary    map[string]int `json:"by_library"`
	// Skipped counts examples dropped, by reason class. For modified APIs
	// it includes SkipSurplus and, with ChangeOnly, SkipUnexercised (which
	// counts tasks).
	Skipped map[string]int `json:"skipped"`
	// ModifiedAPIs counts signature-modified bundles with an executed
	// example; ExercisedAPIs those of them with a task whose call exercises
	// the change.
	ModifiedAPIs  int `json:"modified_apis"`
	ExercisedAPIs int `json:"exercised_apis"`
	// ModifiedTasks counts the tasks built for modified APIs and
	// ExercisingTasks those whose call exercises the change, both before
	// ChangeOnly drops any.
	ModifiedTasks   int `json:"modified_tasks"`
	ExercisingTasks int `json:"exercising_tasks"`
	// ExampleChecked counts the tasks whose test also holds the example's
	// own checks (a test-suite example's asserts, docs/protocol.md §7
	// Stage 3).
	ExampleChecked int `json:"example_checked"`
	// InPlace counts the tasks whose test checks what the call changes in
	// place (its receiver or arguments) because nothing about its result
	// tells it from a null stub (docs/protocol.md §7 Stage 3).
	InPlace int `json:"in_place"`
	// StaticExercising counts the modified tasks that exercise the change
	// by the static rule ([Change.Exercised]); it equals ExercisingTasks
	// unless OldEnv decided some.
	StaticExercising int `json:"static_exercising"`
	// OldEnvCheck counts the modified tasks by Task.OldEnvCheck outcome
	// (fails, fails_elsewhere, passes, error); nil without OldEnv.
	// ExercisingTasks counts the fails, none of the passes, and those of
	// the others that the static rule counts.
	OldEnvCheck map[string]int `json:"old_env_check,omitempty"`
	// Mutants reports the mutant check; nil when it was skipped.
	Mutants *MutantSummary `json:"mutants,omitempty"`
	// Reused reports that existing tasks were loaded instead of built.
	Reused bool `json:"reused,omitempty"`
}

// built is one record of taskgen.py's /out/tasks.json.
type built struct {
	APIName    string   `json:"api_name"`
	Example    int      `json:"example"`
	Skipped    string   `json:"skipped"`
	Context    string   `json:"context"`
	Call       string   `json:"call"`
	Masked     string   `json:"masked"`
	Reference  string   `json:"reference"`
	Assertions []string `json:"assertions"`
	// ExampleAssertions are the example's own checks (a test's asserts
	// and assertion-function calls), rewritten onto `result`, that held on
	// both reference runs (docs/protocol.md §7 Stage 3); they follow the
	// value assertions in the test.
	ExampleAssertions []exampleCheck `json:"example_assertions"`
	Inputs            []string       `json:"inputs"`
	// InPlace names the context variables the call changes in place whose
	// state after it the assertions check (none unless no assertion on
	// the result separates the reference from a null stub).
	InPlace    []string `json:"in_place"`
	ArgsSrc    string   `json:"args_src"`
	Receiver   string   `json:"receiver"` // what the call's function is an attribute of ("np.fft", "s")
	ResultType string   `json:"result_type"`
	// The target call's keyword argument names (no **), its positional
	// arguments before any *iterable (an explicit self of Class.method(obj)
	// not counted), and whether it unpacks * or ** arguments.
	Keywords    []string `json:"keywords"`
	NPositional int      `json:"n_positional"`
	Unpacks     bool     `json:"unpacks"`
}

// exampleCheck is one of an example's own checks: the statements that
// bind the names it uses, then an assert's expression or (Call) an
// assertion-function call run as a statement.
type exampleCheck struct {
	Setup []string `json:"setup"`
	Check string   `json:"check"`
	Call  bool     `json:"call"`
}

// ModifiedTries is how many times MaxExamples executed examples are tried
// for a signature-modified API, looking for calls that exercise the change.
const ModifiedTries = 3

// Skip reasons of BuildSummary.Skipped specific to modified APIs.
const (
	// SkipSurplus: the example gave a task but MaxExamples others were
	// kept (those exercising the change first).
	SkipSurplus = "surplus"
	// SkipUnexercised: the example's call does not exercise the signature
	// change and BuildConfig.ChangeOnly is set.
	SkipUnexercised = "does not exercise the signature change"
)

// BuildTasks builds easy (and, with cfg.Medium, medium) tasks from the
// bundles' executed examples (docs/protocol.md §7 Stage 3, offline): the context is
// the example's lines before the first statement that calls the target, the
// masked region assigns the target call to `result`, the reference is
// context + masked region, and execution_test is the monitor check block
// (§4.1) followed by the assertions about `result` that held on two
// reference runs and failed with the target replaced by a null stub. The
// description says what the API does, with every word containing the leaf
// name removed (§7: the leaf must not appear). Expected call records and C1
// are separate steps (RecordCalls, FilterC1).
//
// For signature-modified APIs (§7 Stage 3: "every task must exercise the
// change") each task records the API's [SignatureChange] parameters and
// whether its call passes one of them (Task.ChangedParams,
// Task.ExercisesChange); examples are picked to exercise the change where
// they can (see BuildConfig.MaxExamples), an exercising task's description
// names the changed parameter, and cfg.ChangeOnly drops the others.
func BuildTasks(ctx context.Context, cfg BuildConfig) ([]*pool.Task, BuildSummary, error) {
	if cfg.Env == nil || cfg.Runner == nil {
		return nil, BuildSummary{}, errors.New("construct: Env and Runner are required")
	}
	if cfg.MaxExamples <= 0 {
		cfg.MaxExamples = DefaultMaxExamples
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Wall <= 0 {
		cfg.Wall = 60 * time.Second
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	sum := BuildSummary{APIs: len(cfg.Bundles), ByDifficulty: map[string]int{}, ByLibrary: map[string]int{}, Skipped: map[string]int{}}
	var work []*job
	for i := range cfg.Bundles {
		if j := planJob(&cfg.Bundles[i], cfg.MaxExamples); len(j.examples) > 0 {
			work = append(work, j)
			if j.b.IsModified {
				sum.ModifiedAPIs++
			}
		}
	}
	sum.WithExamples = len(work)
	bar := progress.New(cfg.Progress, len(work), "tasks build")
	var (
		mu      sync.Mutex
		tasks   []*pool.Task
		checked = map[string]bool{} // task IDs whose test holds the example's checks
		inPlace = map[string]bool{} // task IDs whose test checks inputs changed in place
		first   error
	)
	add := func(r built, ts []*pool.Task) {
		for _, t := range ts {
			if len(r.ExampleAssertions) > 0 {
				checked[t.TaskID] = true
			}
			if len(r.InPlace) > 0 {
				inPlace[t.TaskID] = true
			}
		}
		tasks = append(tasks, ts...)
	}
	var g errgroup.Group
	g.SetLimit(cfg.Workers)
	for _, j := range work {
		if ctx.Err() != nil {
			break
		}
		b := j.b
		g.Go(func() error {
			recs, err := runBuilder(ctx, cfg, j)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil && ctx.Err() == nil {
				first = fmt.Errorf("build tasks for %s: %w", b.APIName, err)
			}
			var good []built
			for _, r := range recs {
				sum.Examples++
				if r.Skipped != "" {
					sum.Skipped[skipClass(r.Skipped)]++
					log.Debug("example skipped", "api", b.APIName, "example", r.Example, "why", r.Skipped)
					continue
				}
				good = append(good, r)
			}
			if !b.IsModified {
				for _, r := range good {
					add(r, tasksFrom(b, r, cfg, nil))
				}
				bar.Add(1)
				return nil
			}
			hits := make([][]string, len(good))
			for i, r := range good {
				if j.known {
					hits[i] = j.change.Exercised(r.Keywords, r.NPositional, r.Unpacks)
				}
			}
			order := make([]int, len(good))
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(x, y int) bool { return len(hits[order[x]]) > 0 && len(hits[order[y]]) == 0 })
			kept := 0
			for _, i := range order {
				r := good[i]
				if kept >= cfg.MaxExamples {
					sum.Skipped[SkipSurplus]++
					continue
				}
				ex := &exercise{known: j.known, change: j.change, hits: hits[i]}
				ts := tasksFrom(b, r, cfg, ex)
				if len(ts) > 0 {
					kept++
				}
				add(r, ts)
			}
			bar.Add(1)
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return nil, sum, context.Cause(ctx)
	}
	if first != nil && len(tasks) == 0 {
		return nil, sum, first
	}
	var modified []*pool.Task
	for _, t := range tasks {
		if t.Novelty == "modified" {
			modified = append(modified, t)
			if t.ExercisesChange != nil && *t.ExercisesChange {
				sum.StaticExercising++
			}
		}
	}
	if cfg.OldEnv != nil {
		sum.OldEnvCheck = map[string]int{}
		if err := checkOldEnv(ctx, cfg, modified, sum.OldEnvCheck); err != nil {
			return nil, sum, err
		}
	}
	exercisedAPIs := map[string]bool{}
	tasks = slices.DeleteFunc(tasks, func(t *pool.Task) bool {
		if t.Novelty != "modified" {
			return false
		}
		sum.ModifiedTasks++
		if t.ExercisesChange != nil && *t.ExercisesChange {
			sum.ExercisingTasks++
			exercisedAPIs[t.APIName] = true
			return false
		}
		if cfg.ChangeOnly {
			sum.Skipped[SkipUnexercised]++
			log.Debug("task dropped", "api", t.APIName, "task", t.TaskID, "why", SkipUnexercised)
			return true
		}
		return false
	})
	sum.ExercisedAPIs = len(exercisedAPIs)
	if !cfg.SkipMutantCheck && len(tasks) > 0 {
		var err error
		if tasks, sum.Mutants, err = checkMutants(ctx, cfg, tasks); err != nil {
			return nil, sum, err
		}
	}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].TaskID < tasks[j].TaskID })
	for _, t := range tasks {
		sum.Tasks++
		sum.ByDifficulty[t.Difficulty]++
		sum.ByLibrary[t.Library]++
		if checked[t.TaskID] {
			sum.ExampleChecked++
		}
		if inPlace[t.TaskID] {
			sum.InPlace++
		}
	}
	return tasks, sum, nil
}

// A job is one API's builder run: the examples to try, in order, with
// their indices among the bundle's executed examples (which task IDs use).
type job struct {
	b        *bundles.Bundle
	examples []string
	index    []int
	change   Change // when known: b is modified and both signatures are known
	known    bool
}

// planJob picks the executed examples to try for b: the first max, or for
// a modified API with a known change up to ModifiedTries*max, those that
// mention a changed parameter as a keyword (`name=`) first.
func planJob(b *bundles.Bundle, max int) *job {
	j := &job{b: b}
	if b.IsModified {
		j.change, j.known = SignatureChange(b)
	}
	var mention *regexp.Regexp
	limit := max
	if j.known {
		limit = ModifiedTries * max
		if names := j.change.KeywordParams(); len(names) > 0 {
			quoted := make([]string, len(names))
			for i, n := range names {
				quoted[i] = regexp.QuoteMeta(n)
			}
			mention = regexp.MustCompile(`\b(?:` + strings.Join(quoted, "|") + `)\s*=[^=]`)
		}
	}
	var first, rest []int
	var codes []string
	for _, e := range b.Examples {
		if e.Status != bundles.StatusExecuted {
			continue
		}
		if mention != nil && mention.MatchString(e.Code) {
			first = append(first, len(codes))
		} else {
			rest = append(rest, len(codes))
		}
		codes = append(codes, e.Code)
	}
	for _, i := range append(first, rest...) {
		if len(j.index) == limit {
			break
		}
		j.index = append(j.index, i)
		j.examples = append(j.examples, codes[i])
	}
	return j
}

// exercise is what tasksFrom records about a modified API's task.
type exercise struct {
	known  bool
	change Change
	hits   []string // changed parameters the call passes
}

func skipClass(why string) string {
	if i := strings.IndexAny(why, ":("); i > 0 {
		return strings.TrimSpace(why[:i])
	}
	return why
}

func runBuilder(ctx context.Context, cfg BuildConfig, j *job) ([]built, error) {
	b := j.b
	var aliases []string
	if b.Provenance != nil {
		aliases = b.Provenance.Aliases
	}
	api := map[string]any{"api_name": b.APIName, "aliases": aliases, "examples": j.examples}
	if j.known {
		idx, from := j.change.positionalHits()
		api["prefer"] = map[string]any{"keywords": j.change.KeywordParams(), "positions": idx, "positions_from": from}
	}
	input, err := json.Marshal(map[string]any{"apis": []any{api}, "bootstrap": bundles.Bootstrap(b.APIName)})
	if err != nil {
		return nil, err
	}
	spec := sandbox.Spec{
		Environment: cfg.Env,
		Files: []sandbox.File{
			{Path: "main.py", Data: taskgenPy},
			{Path: "stubs.py", Data: stubsPy},
			{Path: "input.json", Data: input},
		},
		Limits: sandbox.Limits{Wall: cfg.Wall, Memory: 2 << 30},
	}
	res, err := cfg.Runner.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	var recs []built
	if data, ok := res.Outputs["tasks.json"]; ok {
		if err := json.Unmarshal(data, &recs); err != nil {
			return nil, fmt.Errorf("decode builder output: %w", err)
		}
	}
	if len(recs) == 0 {
		why := "builder produced nothing"
		if res.TimedOut {
			why = "builder timed out"
		} else if len(res.Stderr) > 0 {
			why += ": " + lastLine(string(res.Stderr))
		}
		return []built{{APIName: b.APIName, Skipped: why}}, nil
	}
	for i := range recs {
		if k := recs[i].Example; k >= 0 && k < len(j.index) {
			recs[i].Example = j.index[k]
		}
	}
	return recs, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func taskID(parts ...string) string {
	h := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return "nv_" + hex.EncodeToString(h[:6])
}

// tasksFrom makes the tasks of one example; ex is nil for a new API.
func tasksFrom(b *bundles.Bundle, r built, cfg BuildConfig, ex *exercise) []*pool.Task {
	leaf := bundles.LeafName(b.APIName)
	what := purpose(b, leaf)
	if what == "" {
		return nil
	}
	novelty := "new"
	if b.IsModified {
		novelty = "modified"
	}
	var asserts strings.Builder
	kind := "result"
	if len(r.InPlace) > 0 {
		kind = "in-place"
	}
	for i, a := range r.Assertions {
		fmt.Fprintf(&asserts, "assert %s, %q\n", a, fmt.Sprintf("%s check %d/%d failed", kind, i+1, len(r.Assertions)))
	}
	written := map[string]bool{} // setup statements already in the test
	for i, a := range r.ExampleAssertions {
		for _, line := range a.Setup {
			if !written[line] {
				written[line] = true
				asserts.WriteString(line + "\n")
			}
		}
		if a.Call {
			asserts.WriteString(a.Check + "\n")
			continue
		}
		fmt.Fprintf(&asserts, "assert %s, %q\n", a.Check, fmt.Sprintf("example check %d/%d failed", i+1, len(r.ExampleAssertions)))
	}
	test := pool.CheckBlock(b.APIName) + asserts.String()
	var note string
	if ex != nil && len(ex.hits) > 0 {
		var parts []string
		for _, h := range ex.hits {
			how := ""
			switch {
			case slices.Contains(r.Keywords, h):
			case ex.change.passedPositionally(h, r.NPositional):
				how = " (passed positionally)"
			default:
				how = " (left at its default)"
			}
			parts = append(parts, "`"+h+"`"+how+" "+ex.change.Describe(h))
		}
		note = " The call relies on a recent signature change: " + strings.Join(parts, "; ") + "."
	}
	mk := func(diff, desc, masked string) *pool.Task {
		ref := masked
		if r.Context != "" {
			ref = r.Context + "\n" + masked
		}
		if note != "" && !leaks(desc+note, leaf) {
			desc += note
		}
		t := &pool.Task{
			TaskID: taskID(b.APIName, fmt.Sprint(r.Example), diff), APIName: b.APIName, Library: b.Library,
			Domain: domainOf(b), Difficulty: diff, Description: desc, ContextCode: r.Context,
			MaskedRegion: masked, ReferenceSolution: ref,
			TestHarness: pool.TestHarness{
				SetupCode: pool.StockMonitor(b.APIName), ExecutionTest: test,
				TargetAPI: b.APIName, GenerationMethod: "execute_then_assert",
				ScenariosSucceeded: 1, ScenariosTotal: 1,
			},
			Novelty: novelty, Environment: cfg.Env.Name, Generator: Generator,
		}
		if ex != nil && ex.known {
			t.ChangedParams = ex.change.Params()
			yes := len(ex.hits) > 0
			t.ExercisesChange = &yes
		}
		return t
	}
	var out []*pool.Task
	easy := what + " " + easyInstruction(b, r)
	if !leaks(easy, leaf) {
		out = append(out, mk("easy", easy, r.Masked))
	}
	if cfg.Medium && len(r.Inputs) > 0 {
		params := strings.Join(r.Inputs, ", ")
		var guard []string
		for _, in := range r.Inputs {
			guard = append(guard, in+" is None")
		}
		imports := strings.TrimSuffix(r.Masked, "result = "+r.Call)
		masked := imports + "def solve(" + params + "):\n" +
			"    if " + strings.Join(guard, " or ") + ":\n" +
			"        raise ValueError('missing input')\n" +
			"    out = " + r.Call + "\n" +
			"    return out\n" +
			"result = solve(" + params + ")"
		desc := "Write a function `solve(" + params + ")` that raises ValueError when any input is None and otherwise does the following: " +
			lowerFirst(what) + " It calls " + callee(b, r) + " " + argsPhrase(r) +
			" and returns the outcome." + changesPhrase(r) + " Then set `result = solve(" + params + ")`."
		if !leaks(desc, leaf) {
			out = append(out, mk("medium", desc, masked))
		}
	}
	return out
}

func domainOf(b *bundles.Bundle) string {
	if b.Domain != "" {
		return b.Domain
	}
	return bundles.DomainOf(b.Library)
}

func easyInstruction(b *bundles.Bundle, r built) string {
	return "Call " + callee(b, r) + " " + argsPhrase(r) + " and store the outcome in `result`." + changesPhrase(r)
}

// changesPhrase tells which inputs the call changes in place, when the
// test checks them (built.InPlace): the outcome alone does not say what
// the task asks for.
func changesPhrase(r built) string {
	if len(r.InPlace) == 0 {
		return ""
	}
	return " The call changes " + codeList(r.InPlace) + " in place."
}

// callee names what to call without its leaf name: the method of the
// receiver for methods, else a function of the API's module, so that
// sibling APIs with similar summaries can be told apart.
func callee(b *bundles.Bundle, r built) string {
	mod, _ := bundles.SplitQualname(b.APIName)
	if b.Provenance != nil && b.Provenance.Kind == "method" && r.Receiver != "" {
		return "the appropriate method of `" + r.Receiver + "` (a `" + mod + "` object)"
	}
	if mod == "" || mod == b.Library {
		return "the appropriate " + b.Library + " function"
	}
	return "the appropriate function of `" + mod + "`"
}

// argsPhrase tells the arguments of the reference call, so that the
// task is solvable from its text (the call records compare arguments).
func argsPhrase(r built) string {
	if r.ArgsSrc == "" {
		return "without arguments"
	}
	return "with the arguments `" + r.ArgsSrc + "`"
}

func codeList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// maxPurpose caps the summary sentence of a description, in bytes.
const maxPurpose = 200

var (
	sentenceEnd = regexp.MustCompile(`[.!?](\s|$)`)
	spaces      = regexp.MustCompile(`\s+`)
	markup      = regexp.MustCompile("[`*]|:[a-z]+:")
)

// purpose returns the first sentence of what the API does (mechanism text,
// else a parameter-free fallback), with every word that contains the leaf
// name (case-insensitive) replaced by "[…]", the sentence then quoted.
func purpose(b *bundles.Bundle, leaf string) string {
	text := b.Mechanism.Text
	text = markup.ReplaceAllString(text, "")
	text = strings.TrimSpace(spaces.ReplaceAllString(text, " "))
	if loc := sentenceEnd.FindStringIndex(text); loc != nil {
		text = text[:loc[0]+1]
	}
	if len(text) < 12 {
		return ""
	}
	if len(text) > maxPurpose { // a summary line without a full stop ran on
		cut := strings.LastIndexByte(text[:maxPurpose], ' ')
		text = strings.TrimRight(text[:cut], ",;:") + "…"
	}
	red := redact(text, leaf)
	if red == text {
		return text
	}
	// The leaf was a word of the sentence (often its verb): quote the
	// sentence with the gap marked instead of leaving broken grammar.
	return "The " + b.Library + " function to use is documented as: \"" + red + "\""
}

// redact replaces every whitespace-separated word containing leaf
// (case-insensitive) with "[…]", and for a leaf of several words joined by
// underscores every run of words that spells them with spaces ("Return
// the cumulative sum." for cumulative_sum: "Return the […].").
func redact(text, leaf string) string {
	if leaf == "" {
		return text
	}
	ll := strings.ToLower(leaf)
	parts := strings.FieldsFunc(ll, func(r rune) bool { return r == '_' })
	words := strings.Fields(text)
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		n := 1
		if !strings.Contains(strings.ToLower(w), ll) {
			if n = spelled(words[i:], parts); n == 0 {
				out = append(out, w)
				continue
			}
			w = words[i+n-1]
		}
		trail := ""
		if k := len(w); k > 0 && strings.ContainsAny(w[k-1:], ".,;:") {
			trail = w[k-1:]
		}
		out = append(out, "[…]"+trail)
		i += n - 1
	}
	return strings.Join(out, " ")
}

// spelled returns how many of words, from the first, spell the leaf parts
// (lower case, at least two) with spaces: the first word ends with the
// first part, the middle ones equal theirs and the last begins with the
// last part ("cumulative sum." for cumulative, sum); 0 when they do not.
func spelled(words, parts []string) int {
	if len(parts) < 2 || len(words) < len(parts) {
		return 0
	}
	for j, p := range parts {
		w := strings.ToLower(words[j])
		switch {
		case j == 0 && !strings.HasSuffix(w, p),
			j == len(parts)-1 && !strings.HasPrefix(w, p),
			j > 0 && j < len(parts)-1 && w != p:
			return 0
		}
	}
	return len(parts)
}

// leaks reports whether desc contains the leaf name (case-insensitive
// substring, the protocol's rejection rule, §7 Stage 3), or, for a leaf of
// several words joined by underscores, those words joined by spaces
// ("cumulative sum" for cumulative_sum, "matrix rank" for matrix_rank).
func leaks(desc, leaf string) bool {
	d, l := strings.ToLower(desc), strings.ToLower(leaf)
	if strings.Contains(d, l) {
		return true
	}
	words := strings.FieldsFunc(l, func(r rune) bool { return r == '_' })
	return len(words) > 1 && strings.Contains(strings.Join(strings.Fields(d), " "), strings.Join(words, " "))
}
