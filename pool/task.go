package pool

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/pysyntax"
)

// A Task is one benchmark task: the protocol's tasks.jsonl record
// (docs/protocol.md §1.3) plus novelapi's optional fields. Files
// written by the published benchmark decode unchanged; the extension fields
// are omitted when empty.
type Task struct {
	TaskID            string      `json:"task_id"`
	APIName           string      `json:"api_name"`
	Library           string      `json:"library"`
	Domain            string      `json:"domain"`
	Difficulty        string      `json:"difficulty"` // easy, medium, hard
	Description       string      `json:"description"`
	ContextCode       string      `json:"context_code"`
	MaskedRegion      string      `json:"masked_region"`
	ReferenceSolution string      `json:"reference_solution"`
	TestHarness       TestHarness `json:"test_harness"`

	// Novelty is "new" (newly introduced API) or "modified" (signature
	// changed); "" when unknown. It is the bundle's is_modified flag (§9.17).
	Novelty string `json:"novelty,omitempty"`
	// Environment names the sandbox environment to run in; "" selects the
	// library's default (see Config.EnvNames).
	Environment string `json:"environment,omitempty"`
	// TimeoutS is the wall limit of one run in seconds; 0 selects the
	// library's eval timeout (docs/protocol.md §1.9, default 30 s).
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// Generator says who wrote the task ("novelapi:<version>", "llm:<model>",
	// "hand"); "" for the published pool.
	Generator string `json:"generator,omitempty"`
	// ChangedParams lists, for a signature-modified API, the parameters
	// whose change a call can exercise (added, default, kind or position
	// changed; construct.Change.Params), in signature order; empty for new
	// APIs, when the change is unknown or when no call can exercise it.
	ChangedParams []string `json:"changed_params,omitempty"`
	// ExercisesChange reports, for a signature-modified API, whether the
	// reference's target call passes a changed parameter (docs/protocol.md §7
	// Stage 3: "every task must exercise the change"); nil for new APIs,
	// when the change is unknown, and in the published pool.
	ExercisesChange *bool `json:"exercises_change,omitempty"`
	// OldEnvCheck is the outcome of running the reference solution and the
	// execution_test assertions in the old release's environment
	// (construct.BuildConfig.OldEnv), which checks docs/protocol.md §7 Stage 3's
	// "every task must exercise the change": "fails" (an exception or a
	// failed assertion: the task tells the releases apart, so
	// ExercisesChange is true), "fails_elsewhere" (it fails because a
	// module or name it uses does not exist in the old release, e.g.
	// "AttributeError: module 'numpy' has no attribute 'strings'", not
	// because of the signature change; construct.FailsElsewhere has the
	// rule; ExercisesChange keeps the static rule), "passes"
	// (ExercisesChange is false) or "error" (the run could not decide: it
	// timed out, hit a limit, or the reference failed in the new
	// environment too; ExercisesChange keeps the static rule). "" when not
	// checked.
	OldEnvCheck string `json:"old_env_check,omitempty"`
	// OldEnvError is the last line of the old run's error output when
	// OldEnvCheck is "fails", "fails_elsewhere" or "error" (e.g.
	// "TypeError: sort() got an unexpected keyword argument 'stable'").
	OldEnvError string `json:"old_env_error,omitempty"`
	// SpyAPIs lists further fully qualified targets to monitor for
	// multi-API pools; a call to any of them counts. Empty means only APIName.
	SpyAPIs []string `json:"spy_apis,omitempty"`
	// SpyRequired, when false, drops the monitor requirement (HumanEval-style
	// pools without a target API); nil means true.
	SpyRequired *bool `json:"spy_required,omitempty"`
	// EntryPoint names the function a HumanEval-style completion defines.
	EntryPoint string `json:"entry_point,omitempty"`
	// SpyScope says which target calls count as the completion's:
	// SpyScopeCompletion ("", the protocol's §4.1 check: calls made while
	// the completion runs) or SpyScopeEntryPoint (calls made while the
	// completion's EntryPoint runs, at any time up to the end of the test:
	// for pools whose completion only defines a function that the tests
	// call, and whose tests also call the target themselves).
	SpyScope string `json:"spy_scope,omitempty"`
	// HiddenSetup is Python run after the import line [A] and before the
	// monitor [B] (docs/protocol.md §4.1 with a novelapi part [A']), never shown in
	// a prompt: e.g. CodeUpdateArena's installation of a fictitious update
	// onto the real package, which the monitor must find installed to wrap
	// it. "" for tasks that patch nothing.
	HiddenSetup string `json:"hidden_setup,omitempty"`
	// BundleVersion is the Provenance.Version of the task's bundle when
	// several bundles share its api_name (CodeUpdateArena has six updates
	// of numpy.sum); "" means the only bundle of api_name.
	BundleVersion string `json:"bundle_version,omitempty"`
	// Origin names the dataset an imported task comes from
	// ("codeupdatearena", "pricoder", "humaneval"); "" for native tasks.
	Origin string `json:"origin,omitempty"`
	// Group is the dataset's own grouping of the task (CodeUpdateArena's
	// real package), reported per group in summaries; "" when none.
	Group string `json:"group,omitempty"`

	// PromptRest is, for a task of a HumanEval-style pool that is not
	// renamed (docs/importers.md "HumanEval-style pools"), the part of the
	// pool's prompt after ContextCode; MaskedRegion starts with it, and
	// ContextCode + PromptRest is the prompt. Such a pool's completions
	// continue the prompt, and the harness joins one as the pool's own
	// harness does ([Task.ContinuesPrompt]). "" for other tasks.
	PromptRest string `json:"prompt_rest,omitempty"`

	// Keywords is the renaming of a task from a renamed pool (APICoder's
	// MonkeyEval and BeatNumEval: pandas and numpy with every name
	// changed), in the order the pool's own harness applies it; empty for
	// other tasks. Such a task shows the renamed prompt and runs the
	// original pool's prompt and test, so the harness translates each
	// completion back before running it, as that harness does
	// (docs/importers.md "APICoder"): the completion that continues
	// RenamedPrompt (what follows RenamedPrompt or RenamedRest when the
	// completion repeats either, else all of it) becomes "error!" when it
	// names an Original that is not also a Renamed name, else every
	// Renamed name in it is replaced by its Original, pair after pair, by
	// plain substring replacement; a repeated RenamedPrompt or RenamedRest
	// is replaced by OriginalRest. MaskedRegion is written in the original
	// names, RenamedReference in the renamed ones.
	Keywords []KeywordPair `json:"keywords,omitempty"`
	// RenamedPrompt is the renamed pool's prompt, which the completion
	// continues (Description shows it, trimmed).
	RenamedPrompt string `json:"renamed_prompt,omitempty"`
	// RenamedRest is the part of RenamedPrompt that the masked region
	// replaces: what follows its context.
	RenamedRest string `json:"renamed_rest,omitempty"`
	// OriginalRest is the original prompt's part after HiddenSetup (the
	// original's context); MaskedRegion starts with it.
	OriginalRest string `json:"original_rest,omitempty"`
	// RenamedReference is the reference as the renamed pool writes it:
	// RenamedRest followed by the renamed pool's own solution. Translated,
	// it is MaskedRegion.
	RenamedReference string `json:"renamed_reference,omitempty"`
}

// A KeywordPair is one renaming of a renamed pool (Task.Keywords): a name
// of the real library and the name it has in the pool ("DataFrame",
// "KnowledgeFrame").
type KeywordPair struct {
	Original string `json:"original"`
	Renamed  string `json:"renamed"`
}

// Renamed reports whether the task comes from a renamed pool, whose
// completions the harness translates back (Keywords is not empty).
func (t *Task) Renamed() bool { return len(t.Keywords) > 0 }

// ContinuesPrompt reports whether the task's completions continue its
// prompt, as in HumanEval-style pools (PromptRest set, or a renamed pool):
// the pool's own harness runs prompt + completion, so a completion may be
// a function body alone (docs/importers.md "Joining a completion"). The
// harness then runs a completion that repeats the prompt, or its part
// after the context, with the repeat given once; a completion that
// continues that part as written (the two parse together) after it,
// exactly; and any other completion (one that writes its own function,
// module code) in place of the masked region. A renamed pool's
// completion is translated back after the join (Keywords).
func (t *Task) ContinuesPrompt() bool { return t.PromptRest != "" || t.Renamed() }

// Spy scopes of a task (Task.SpyScope).
const (
	SpyScopeCompletion = ""
	SpyScopeEntryPoint = "entry_point"
)

// OriginHumanEval is the Origin of the tasks of HumanEval-style pools
// (docs/importers.md "HumanEval-style pools").
const OriginHumanEval = "humaneval"

// HumanEvalConvention reports whether the task's pool is scored as
// openai/human-eval scores it (Origin OriginHumanEval): pass@k is averaged
// over the tasks that have a prediction, so a task without one is missing
// rather than failed ([TaskResult.Missing]; docs/protocol.md §1.8).
func (t *Task) HumanEvalConvention() bool { return t.Origin == OriginHumanEval }

// Imported reports whether the task comes from another study's pool
// (Origin set, or a Generator starting with "import:"), written by package
// importers.
func (t *Task) Imported() bool {
	return t.Origin != "" || strings.HasPrefix(t.Generator, "import:")
}

// TestHarness is the task's test_harness object (docs/protocol.md §1.3). Only
// ExecutionTest runs at evaluation; SetupCode must be the stock monitor
// (§4.2) and is replaced by the recording monitor (§9.16).
type TestHarness struct {
	SetupCode          string `json:"setup_code"`
	ExecutionTest      string `json:"execution_test"`
	ShapeTypeTest      string `json:"shape_type_test"`
	MockTest           string `json:"mock_test"`
	TargetAPI          string `json:"target_api"`
	GenerationMethod   string `json:"generation_method"`
	ScenariosSucceeded int    `json:"scenarios_succeeded"`
	ScenariosTotal     int    `json:"scenarios_total"`
}

// SpyNeeded reports whether the task requires the target-API monitor
// (SpyRequired is nil or true).
func (t *Task) SpyNeeded() bool { return t.SpyRequired == nil || *t.SpyRequired }

// Targets returns the APIs the task's spy watches: APIName, then the
// SpyAPIs that differ from it, in order.
func (t *Task) Targets() []string {
	out := []string{t.APIName}
	for _, s := range t.SpyAPIs {
		if s != "" && s != t.APIName {
			out = append(out, s)
		}
	}
	return out
}

// Leaf returns the last dotted segment of the target API name.
func (t *Task) Leaf() string { return leafOf(t.APIName) }

// Timeout returns the task's wall limit: TimeoutS, else the library's
// eval timeout from docs/protocol.md §1.9, else 30 s.
func (t *Task) Timeout() time.Duration {
	if t.TimeoutS > 0 {
		return time.Duration(t.TimeoutS * float64(time.Second))
	}
	if s, ok := LibraryTimeouts[t.Library]; ok {
		return time.Duration(s) * time.Second
	}
	return DefaultTimeout
}

// DefaultTimeout is the eval timeout of libraries without their own entry
// (docs/protocol.md §1.9).
const DefaultTimeout = 30 * time.Second

// LibraryTimeouts maps a library config key to its eval_timeout_seconds
// (docs/protocol.md §1.9); missing libraries use DefaultTimeout.
var LibraryTimeouts = map[string]int{
	"ase": 150, "astropy": 150, "deepchem": 300, "pymatgen": 150,
	"diffusers": 240, "torch": 240, "transformers": 240,
}

// ExpectedCalls is one expected_calls.jsonl record (docs/protocol.md §1.4): the
// reference call records of a task. Expected holds the records verbatim
// (JSON objects), so numbers keep their int/float spelling when they are
// embedded into the call-record check.
type ExpectedCalls struct {
	TaskID          string            `json:"task_id"`
	APIName         string            `json:"api_name"`
	Status          string            `json:"status"` // ok, unstable, no_calls, reference_failed
	Expected        []json.RawMessage `json:"expected"`
	ReferenceSource string            `json:"reference_source"` // masked_region, reference_solution, none
	NRuns           int               `json:"n_runs"`
	Notes           []string          `json:"notes,omitempty"`
}

// Statuses of ExpectedCalls (docs/protocol.md §1.4); evaluation refuses all but ok.
const (
	CallsOK              = "ok"
	CallsUnstable        = "unstable"
	CallsNoCalls         = "no_calls"
	CallsReferenceFailed = "reference_failed"
)

// A Prediction is one predictions.jsonl record (docs/protocol.md §1.8). Samples[0]
// is the greedy response; more samples serve pass@k.
type Prediction struct {
	TaskID        string   `json:"task_id"`
	APIName       string   `json:"api_name,omitempty"`
	Cell          string   `json:"cell,omitempty"`
	Samples       []string `json:"samples"`
	RawSamples    []string `json:"raw_samples,omitempty"`
	FinishReasons []string `json:"finish_reasons,omitempty"`
}

// LoadOptions controls LoadTasks. The zero value validates strictly and
// fails on the first invalid task.
type LoadOptions struct {
	// SkipInvalid skips invalid tasks instead of failing; each one is
	// reported through Invalid (if set) as a *jsonl.ParseError.
	SkipInvalid bool
	Invalid     func(err error)
	// AllowCustomSetup accepts a setup_code that is not the stock monitor
	// (it is never executed either way, §9.16). Published pools need false.
	AllowCustomSetup bool
}

// maxLine bounds one JSONL record (the largest released records are a few
// hundred KB).
const maxLine = 64 << 20

// readJSONL calls fn for each non-blank line of path with its 1-based number.
// An error from fn is wrapped in a *jsonl.ParseError naming path and line.
func readJSONL(path string, fn func(line int, data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	n := 0
	for {
		data, err := r.ReadBytes('\n')
		if len(data) > 0 {
			n++
			if len(data) > maxLine {
				return &jsonl.ParseError{Path: path, Line: n, Err: errors.New("line too long")}
			}
			if t := bytes.TrimSpace(data); len(t) > 0 {
				if ferr := fn(n, t); ferr != nil {
					if _, ok := errors.AsType[*jsonl.ParseError](ferr); ok {
						return ferr
					}
					return &jsonl.ParseError{Path: path, Line: n, Err: ferr}
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// LoadTasks reads a tasks.jsonl file (docs/protocol.md §1.3) and validates every
// task (Task.Validate). Errors name the file and line. Task ids must be
// unique.
func LoadTasks(path string, opts LoadOptions) ([]*Task, error) {
	var tasks []*Task
	seen := map[string]int{}
	err := readJSONL(path, func(line int, data []byte) error {
		t := new(Task)
		err := json.Unmarshal(data, t)
		if err == nil && t.TaskID == "" {
			err = notTask(data)
		}
		if err == nil {
			err = t.Validate(opts.AllowCustomSetup)
		}
		if err == nil {
			if prev, dup := seen[t.TaskID]; dup {
				err = fmt.Errorf("duplicate task_id %q (first on line %d)", t.TaskID, prev)
			}
		}
		if err != nil {
			if !opts.SkipInvalid {
				return err
			}
			if opts.Invalid != nil {
				opts.Invalid(&jsonl.ParseError{Path: path, Line: line, Err: err})
			}
			return nil
		}
		seen[t.TaskID] = line
		tasks = append(tasks, t)
		return nil
	})
	return tasks, err
}

// Validate checks a task against docs/protocol.md §1.3 and §4.1: required fields,
// a description free of the leaf name (imported pools exempt, see
// Task.Imported), a known spy_scope, target_api equal to api_name, the
// stock monitor as setup_code (unless allowCustomSetup), and the
// "# --- end check ---" marker in execution_test when the spy is required.
func (t *Task) Validate(allowCustomSetup bool) error {
	var errs []string
	if t.TaskID == "" {
		errs = append(errs, "task_id is empty")
	}
	if t.SpyNeeded() {
		if t.APIName == "" {
			errs = append(errs, "api_name is empty")
		}
		for _, n := range t.Targets() {
			if n != "" && !pysyntax.IsDottedName(n) {
				errs = append(errs, fmt.Sprintf("target %q is not a dotted Python name", n))
			}
		}
		if t.TestHarness.TargetAPI != "" && t.TestHarness.TargetAPI != t.APIName {
			errs = append(errs, fmt.Sprintf("test_harness.target_api %q differs from api_name %q", t.TestHarness.TargetAPI, t.APIName))
		}
		// Imported pools are exempt: their problem texts name the updated
		// function by design (CodeUpdateArena's "sum", "sin" inside "using").
		if leaf := t.Leaf(); leaf != "" && !t.Imported() && strings.Contains(strings.ToLower(t.Description), strings.ToLower(leaf)) {
			errs = append(errs, fmt.Sprintf("description contains the API leaf name %q", leaf))
		}
		if !strings.Contains(t.TestHarness.ExecutionTest, EndCheckMarker) {
			errs = append(errs, "test_harness.execution_test lacks the "+EndCheckMarker+" marker")
		}
		if !allowCustomSetup && !IsStockMonitor(t.TestHarness.SetupCode, t.APIName) {
			errs = append(errs, "test_harness.setup_code is not the stock target-call monitor for "+t.APIName)
		}
	}
	if strings.TrimSpace(t.TestHarness.ExecutionTest) == "" {
		errs = append(errs, "test_harness.execution_test is empty")
	}
	switch t.SpyScope {
	case SpyScopeCompletion:
	case SpyScopeEntryPoint:
		if !pysyntax.IsIdentifier(t.EntryPoint) {
			errs = append(errs, fmt.Sprintf("spy_scope %q needs an entry_point identifier, have %q", t.SpyScope, t.EntryPoint))
		}
	default:
		errs = append(errs, fmt.Sprintf("spy_scope %q is not \"\" or %q", t.SpyScope, SpyScopeEntryPoint))
	}
	switch t.Difficulty {
	case "", "easy", "medium", "hard":
	default:
		errs = append(errs, fmt.Sprintf("difficulty %q is not easy, medium or hard", t.Difficulty))
	}
	switch t.Novelty {
	case "", "new", "modified":
	default:
		errs = append(errs, fmt.Sprintf("novelty %q is not new or modified", t.Novelty))
	}
	if len(errs) > 0 {
		return fmt.Errorf("task %q: %s", t.TaskID, strings.Join(errs, "; "))
	}
	return nil
}

// LoadExpectedCalls reads an expected_calls.jsonl file (docs/protocol.md §1.4)
// keyed by task id. Records of any status are returned; Evaluate refuses
// those not "ok".
func LoadExpectedCalls(path string) (map[string]*ExpectedCalls, error) {
	out := map[string]*ExpectedCalls{}
	err := readJSONL(path, func(line int, data []byte) error {
		e := new(ExpectedCalls)
		if err := json.Unmarshal(data, e); err != nil {
			return err
		}
		if e.TaskID == "" {
			return errors.New("task_id is empty")
		}
		switch e.Status {
		case CallsOK, CallsUnstable, CallsNoCalls, CallsReferenceFailed:
		default:
			return fmt.Errorf("task %q: status %q is not ok, unstable, no_calls or reference_failed", e.TaskID, e.Status)
		}
		if _, dup := out[e.TaskID]; dup {
			return fmt.Errorf("duplicate task_id %q", e.TaskID)
		}
		out[e.TaskID] = e
		return nil
	})
	return out, err
}

// LoadPredictions reads a predictions.jsonl file (docs/protocol.md §1.8) in file
// order. Each record needs a task_id and at least one sample.
func LoadPredictions(path string) ([]*Prediction, error) {
	var out []*Prediction
	seen := map[string]bool{}
	err := readJSONL(path, func(line int, data []byte) error {
		p := new(Prediction)
		if err := json.Unmarshal(data, p); err != nil {
			return err
		}
		if p.TaskID == "" {
			return errors.New("task_id is empty")
		}
		if len(p.Samples) == 0 {
			return fmt.Errorf("task %q: samples is empty", p.TaskID)
		}
		if seen[p.TaskID] {
			return fmt.Errorf("duplicate task_id %q", p.TaskID)
		}
		seen[p.TaskID] = true
		out = append(out, p)
		return nil
	})
	return out, err
}

// LoadInstance reads an instances/<backbone>.txt file (docs/protocol.md §1.5): task
// ids, one per line, in order. Blank lines are skipped; duplicates are an
// error.
func LoadInstance(path string) ([]string, error) {
	var ids []string
	seen := map[string]int{}
	err := readJSONL(path, func(line int, data []byte) error {
		id := string(data)
		if prev, dup := seen[id]; dup {
			return fmt.Errorf("duplicate task id %q (first on line %d)", id, prev)
		}
		seen[id] = line
		ids = append(ids, id)
		return nil
	})
	return ids, err
}

// WriteTasks writes tasks to path as tasks.jsonl (docs/protocol.md §1.3),
// atomically.
func WriteTasks(path string, tasks []*Task) error { return writeJSONL(path, tasks) }

// WriteExpectedCalls writes records to path as expected_calls.jsonl
// (docs/protocol.md §1.4), atomically.
func WriteExpectedCalls(path string, recs []*ExpectedCalls) error { return writeJSONL(path, recs) }

// writeJSONL writes records to path atomically, one JSON object per line.
func writeJSONL[T any](path string, recs []T) error {
	return jsonl.Write(path, recs)
}

func leafOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// notTask says why a record without a task_id is no task when it is a
// line of a bundles file (s_name and s_param); nil otherwise, leaving the
// record to [Task.Validate].
func notTask(data []byte) error {
	var keys struct {
		SName  *json.RawMessage `json:"s_name"`
		SParam *json.RawMessage `json:"s_param"`
	}
	if json.Unmarshal(data, &keys) != nil || keys.SName == nil || keys.SParam == nil {
		return nil
	}
	return errors.New("not a task: it has no task_id, and s_name and s_param, as a line of bundles.jsonl has; pass the bundles with --bundles and the task pool's tasks.jsonl with --tasks")
}
