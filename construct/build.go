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
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/progress"
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
	MaxExamples int
	// Medium adds a medium-difficulty variant (the call inside a small
	// function with its own input validation) for each easy task whose call
	// uses context variables. Default true via BuildTasks' caller; the zero
	// value leaves it off.
	Medium bool
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
	// Skipped counts examples dropped, by reason class.
	Skipped map[string]int `json:"skipped"`
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
	Inputs     []string `json:"inputs"`
	ArgsSrc    string   `json:"args_src"`
	Receiver   string   `json:"receiver"` // what the call's function is an attribute of ("np.fft", "s")
	ResultType string   `json:"result_type"`
}

// Domains maps library config keys to the protocol's domains (§1.9).
var Domains = map[string]string{
	"numpy": "data_science", "scipy": "data_science", "pandas": "data_science",
	"django": "swe", "flask": "swe", "fastapi": "swe", "httpx": "swe", "pydantic": "swe", "sqlalchemy": "swe",
	"astropy": "ai4science", "ase": "ai4science", "rdkit": "ai4science", "MDAnalysis": "ai4science",
	"pymatgen": "ai4science", "torch": "dl", "networkx": "data_science", "sympy": "data_science",
}

// BuildTasks builds easy (and, with cfg.Medium, medium) tasks from the
// bundles' executed examples (protocol §7 Stage 3, offline): the context is
// the example's lines before the first statement that calls the target, the
// masked region assigns the target call to `result`, the reference is
// context + masked region, and execution_test is the monitor check block
// (§4.1) followed by the assertions about `result` that held on two
// reference runs and failed with the target replaced by a null stub. The
// description says what the API does, with every word containing the leaf
// name removed (§7: the leaf must not appear). Expected call records and C1
// are separate steps (RecordCalls, FilterC1).
func BuildTasks(ctx context.Context, cfg BuildConfig) ([]*evalharness.Task, BuildSummary, error) {
	if cfg.Env == nil || cfg.Runner == nil {
		return nil, BuildSummary{}, errors.New("construct: Env and Runner are required")
	}
	if cfg.MaxExamples <= 0 {
		cfg.MaxExamples = 2
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
	var work []*bundles.Bundle
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		if len(executedExamples(b, cfg.MaxExamples)) > 0 {
			work = append(work, b)
		}
	}
	sum.WithExamples = len(work)
	bar := progress.New(cfg.Progress, len(work), "tasks build")
	var (
		mu    sync.Mutex
		tasks []*evalharness.Task
		first error
	)
	var g errgroup.Group
	g.SetLimit(cfg.Workers)
	for _, b := range work {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			recs, err := runBuilder(ctx, cfg, b)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && first == nil && ctx.Err() == nil {
				first = fmt.Errorf("build tasks for %s: %w", b.APIName, err)
			}
			for _, r := range recs {
				sum.Examples++
				if r.Skipped != "" {
					sum.Skipped[skipClass(r.Skipped)]++
					log.Debug("example skipped", "api", b.APIName, "example", r.Example, "why", r.Skipped)
					continue
				}
				tasks = append(tasks, tasksFrom(b, r, cfg)...)
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
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].TaskID < tasks[j].TaskID })
	for _, t := range tasks {
		sum.Tasks++
		sum.ByDifficulty[t.Difficulty]++
		sum.ByLibrary[t.Library]++
	}
	return tasks, sum, nil
}

func executedExamples(b *bundles.Bundle, max int) []string {
	var out []string
	for _, e := range b.Examples {
		if e.Status == "executed" && len(out) < max {
			out = append(out, e.Code)
		}
	}
	return out
}

func skipClass(why string) string {
	if i := strings.IndexAny(why, ":("); i > 0 {
		return strings.TrimSpace(why[:i])
	}
	return why
}

func runBuilder(ctx context.Context, cfg BuildConfig, b *bundles.Bundle) ([]built, error) {
	var aliases []string
	if b.Provenance != nil {
		aliases = b.Provenance.Aliases
	}
	input, err := json.Marshal(map[string]any{"apis": []any{map[string]any{
		"api_name": b.APIName, "aliases": aliases, "examples": executedExamples(b, cfg.MaxExamples),
	}}})
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
	return recs, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// CheckBlock returns the monitor check block that opens every
// execution_test, ending with evalharness.EndCheckMarker (protocol §4.1).
func CheckBlock(apiName string) string {
	q := fmt.Sprintf("%q", apiName)
	q = q[1 : len(q)-1]
	return "# --- target-API call check (auto-injected) ---\n" +
		"assert _target_api_spy_installed, \"target-API spy failed to install for " + q + "\"\n" +
		"assert _target_api_call_count[0] > 0, \"solution did not call target API " + q + "\"\n" +
		"_target_api_call_count[0] = 0\n" +
		evalharness.EndCheckMarker
}

func taskID(parts ...string) string {
	h := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return "nv_" + hex.EncodeToString(h[:6])
}

func tasksFrom(b *bundles.Bundle, r built, cfg BuildConfig) []*evalharness.Task {
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
	for i, a := range r.Assertions {
		fmt.Fprintf(&asserts, "assert %s, %q\n", a, fmt.Sprintf("result check %d/%d failed", i+1, len(r.Assertions)))
	}
	test := CheckBlock(b.APIName) + "\n" + asserts.String()
	mk := func(diff, desc, masked string) *evalharness.Task {
		ref := masked
		if r.Context != "" {
			ref = r.Context + "\n" + masked
		}
		return &evalharness.Task{
			TaskID: taskID(b.APIName, fmt.Sprint(r.Example), diff), APIName: b.APIName, Library: b.Library,
			Domain: domainOf(b), Difficulty: diff, Description: desc, ContextCode: r.Context,
			MaskedRegion: masked, ReferenceSolution: ref,
			TestHarness: evalharness.TestHarness{
				SetupCode: evalharness.StockMonitor(b.APIName), ExecutionTest: test,
				TargetAPI: b.APIName, GenerationMethod: "execute_then_assert",
				ScenariosSucceeded: 1, ScenariosTotal: 1,
			},
			Novelty: novelty, Environment: cfg.Env.Name, Generator: Generator,
		}
	}
	var out []*evalharness.Task
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
			" and returns the outcome. Then set `result = solve(" + params + ")`."
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
	if d, ok := Domains[b.Library]; ok {
		return d
	}
	return "data_science"
}

func easyInstruction(b *bundles.Bundle, r built) string {
	return "Call " + callee(b, r) + " " + argsPhrase(r) + " and store the outcome in a variable named `result`."
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
// (case-insensitive) with "[…]".
func redact(text, leaf string) string {
	if leaf == "" {
		return text
	}
	ll := strings.ToLower(leaf)
	words := strings.Fields(text)
	for i, w := range words {
		if strings.Contains(strings.ToLower(w), ll) {
			trail := ""
			if n := len(w); n > 0 && strings.ContainsAny(w[n-1:], ".,;:") {
				trail = w[n-1:]
			}
			words[i] = "[…]" + trail
		}
	}
	return strings.Join(words, " ")
}

// leaks reports whether desc contains the leaf name (case-insensitive
// substring, the protocol's rejection rule, §7 Stage 3).
func leaks(desc, leaf string) bool {
	return strings.Contains(strings.ToLower(desc), strings.ToLower(leaf))
}
