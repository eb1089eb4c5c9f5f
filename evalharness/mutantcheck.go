package evalharness

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// mutantCheckPy is the mutant check (docs/mutants.md §1). It is embedded
// apart from py/*.py so that it does not enter [EvaluatorVersion]: the
// check judges tests, not completions.
//
//go:embed py/mutant/check.py
var mutantCheckPy []byte

// MutantCheckVersion versions the mutant set and its check
// (docs/mutants.md §1); a cached [TaskCheck] of another version is
// computed again.
const MutantCheckVersion = 2

// Outcomes of one mutant (docs/mutants.md §1).
const (
	// MutantKilled: the test failed (an assertion, or any exception it raised).
	MutantKilled = "killed"
	// MutantSurvived: the test passed a wrong answer.
	MutantSurvived = "survived"
	// MutantInvalid: the mutant itself raised, so it is no answer a test
	// could be asked to reject.
	MutantInvalid = "invalid"
	// MutantEquivalent: the mutant's outputs equal the reference's.
	MutantEquivalent = "equivalent"
)

// Statuses of a [TaskCheck].
const (
	// CheckDiscriminates: the reference passes and the test rejects every
	// mutant that applies.
	CheckDiscriminates = "discriminates"
	// CheckWeak: the reference passes and at least one mutant survived.
	CheckWeak = "weak"
	// CheckReferenceFails: the reference fails its own test, through the
	// full harness or in the mutant check.
	CheckReferenceFails = "reference_fails"
	// CheckNoMutant: the reference passes but no mutant applies (each was
	// invalid or equivalent), so nothing shows the test discriminates.
	CheckNoMutant = "no_mutant"
	// CheckError: the check did not finish (timeout, sandbox error).
	CheckError = "error"
)

// A MutantOutcome is what a task's test did with one mutant of its
// reference.
type MutantOutcome struct {
	// Name is the mutant's kind: zero (each output times 0), constant (each
	// output replaced by an empty value of its type), sibling-api (the
	// target's leaf renamed to a sibling), dropped-argument (one argument
	// of the target call left out) or changed-input (the call's first
	// input changed before the call).
	Name string `json:"name"`
	// What names the sibling, the argument dropped or the input change;
	// "" for zero and constant.
	What    string `json:"what,omitempty"`
	Code    string `json:"code"`    // the mutated completion
	Outcome string `json:"outcome"` // Mutant* constants
	// Detail is why the test rejected it (killed) or why the mutant did not
	// run (invalid), at most 200 characters.
	Detail string `json:"detail,omitempty"`
}

// A TaskCheck is the outcome of the mutant check of one task, one line of
// the pool's check file (docs/mutants.md §3).
type TaskCheck struct {
	TaskID string `json:"task_id"`
	// Digest identifies the task's reference and test (see [TaskDigest]);
	// a check whose digest differs from the task's is stale.
	Digest  string `json:"digest"`
	Version int    `json:"version"` // MutantCheckVersion
	Status  string `json:"status"`  // Check* constants
	// Script is the reference's outcome in the mutant check: "pass",
	// "fails_test" or "error".
	Script string `json:"script"`
	// Reference is the reference's verdict through the full harness (spy,
	// call-record check, test): "pass", else "<status> <label>"; "" when
	// not checked (no call records). ReferenceCalls is the digest of the
	// call records it was checked with, ReferenceHarness the
	// [ScriptsDigest] of the harness that checked it; a verdict of other
	// records or another harness is made again.
	Reference        string `json:"reference,omitempty"`
	ReferenceCalls   string `json:"reference_calls,omitempty"`
	ReferenceHarness string `json:"reference_harness,omitempty"`
	// ReferenceError says why the reference failed, at most 300 characters.
	ReferenceError string `json:"reference_error,omitempty"`
	// Outputs are the completion's variables that the test reads.
	Outputs []string `json:"outputs,omitempty"`
	// ValueAssertions counts the test's statements that read an output's
	// values; StructuralAssertions those that read only its type, shape,
	// dtype or length (docs/mutants.md §2).
	ValueAssertions      int             `json:"value_assertions"`
	StructuralAssertions int             `json:"structural_assertions"`
	Mutants              []MutantOutcome `json:"mutants,omitempty"`
	Notes                []string        `json:"notes,omitempty"`
	// Error says why the check did not finish (Status CheckError).
	Error string `json:"error,omitempty"`
}

// Survivors returns the mutants the test let pass.
func (c *TaskCheck) Survivors() []MutantOutcome {
	var out []MutantOutcome
	for _, m := range c.Mutants {
		if m.Outcome == MutantSurvived {
			out = append(out, m)
		}
	}
	return out
}

// Why says in one line why the task is flagged ("" for a task whose test
// discriminates): the reference's failure or the mutants that survived.
func (c *TaskCheck) Why() string {
	switch c.Status {
	case CheckDiscriminates:
		return ""
	case CheckReferenceFails:
		if c.Reference != "" && c.Reference != "pass" {
			return "the reference fails through the full harness (" + c.Reference + "): " + c.ReferenceError
		}
		return "the reference fails its own test: " + c.ReferenceError
	case CheckNoMutant:
		return "no mutant applies: " + c.noMutant()
	case CheckError:
		return "check did not finish: " + c.Error
	}
	var parts []string
	for _, m := range c.Survivors() {
		s := m.Name
		if m.What != "" {
			s += " (" + m.What + ")"
		}
		parts = append(parts, s)
	}
	return "accepts wrong answers: mutant " + strings.Join(parts, ", ") + " survived"
}

// settle sets Status from the script's outcome, the harness verdict and
// the mutants.
func (c *TaskCheck) settle() {
	switch {
	case c.Error != "" && c.Script == "", c.Script == "timeout":
		c.Status = CheckError
	case c.Script != "pass" || (c.Reference != "" && c.Reference != "pass"):
		c.Status = CheckReferenceFails
	case len(c.Survivors()) > 0:
		c.Status = CheckWeak
	case c.Error != "":
		c.Status = CheckError
	default:
		c.Status = CheckNoMutant
		for _, m := range c.Mutants {
			if m.Outcome == MutantKilled {
				c.Status = CheckDiscriminates
				break
			}
		}
	}
}

// TaskDigest returns the digest a [TaskCheck] of task is keyed by: the
// check's version and every task field that decides what the reference
// and the test do (api_name, spy targets, environment, library, hidden
// setup, context, masked region, execution_test).
func TaskDigest(task *pool.Task) string {
	h := sha256.New()
	for _, s := range []string{fmt.Sprint(MutantCheckVersion), task.APIName, strings.Join(task.SpyAPIs, ","),
		task.Environment, task.Library, task.HiddenSetup, task.ContextCode, task.MaskedRegion,
		task.TestHarness.ExecutionTest, task.EntryPoint, task.SpyScope} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// callsDigest identifies the call records a reference verdict was made with.
func callsDigest(ec *pool.ExpectedCalls) string {
	if ec == nil {
		return ""
	}
	b, _ := json.Marshal(ec)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// mutantJob is one task of the check script's /job/input.json.
type mutantJob struct {
	TaskID      string   `json:"task_id"`
	APIName     string   `json:"api_name"`
	Prefix      string   `json:"prefix"`
	Completion  string   `json:"completion"`
	Test        string   `json:"test"`
	Siblings    []string `json:"siblings"`
	VariantWall float64  `json:"variant_wall"`
	RefWall     float64  `json:"reference_wall"`
	// Skip lists the mutants ([name, what]) that killed the interpreter in
	// an earlier run: they are recorded invalid without running.
	Skip [][2]string `json:"skip,omitempty"`
}

// mutantReport is one task of the script's /out/mutants.json.
type mutantReport struct {
	TaskID               string          `json:"task_id"`
	Reference            string          `json:"reference"`
	ReferenceError       string          `json:"reference_error"`
	Outputs              []string        `json:"outputs"`
	ValueAssertions      int             `json:"value_assertions"`
	StructuralAssertions int             `json:"structural_assertions"`
	Mutants              []MutantOutcome `json:"mutants"`
	Notes                []string        `json:"notes"`
	Done                 bool            `json:"done"`
	// Running is the mutant ([name, what]) that was running when the
	// report was last written; set in the report of a run that died.
	Running *[2]string `json:"running"`
}

// maxVariantWall bounds one run of the reference or a mutant inside the
// check; the task's own timeout applies when it is shorter.
const maxVariantWall = 20 * time.Second

// jobOf is the script's view of task: the setup the evaluation runs before
// the completion ([A], [A'], the context, [D]) without the monitor, the
// masked region as the completion, and the test after the end-check marker.
func jobOf(task *pool.Task) mutantJob {
	var parts []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	if task.SpyNeeded() {
		add(importLine(task.APIName))
	}
	add(task.HiddenSetup)
	add(task.ContextCode)
	if task.SpyNeeded() {
		add(leafBinding(task.APIName))
	}
	test := task.TestHarness.ExecutionTest
	if _, tail, ok := strings.Cut(test, pool.EndCheckMarker); ok {
		test = tail
	}
	j := mutantJob{TaskID: task.TaskID, APIName: task.APIName, Prefix: strings.Join(parts, "\n\n"),
		Completion: strings.TrimSpace(task.MaskedRegion), Test: strings.TrimSpace(test),
		VariantWall: min(task.Timeout(), maxVariantWall).Seconds(), RefWall: task.Timeout().Seconds()}
	if s := MutationHints[task.APIName].Sibling; s != "" {
		j.Siblings = []string{s}
	}
	return j
}

// checkWall bounds one check run of n tasks: the reference, two result
// mutants, up to eight siblings, four dropped arguments and three input
// changes each, at the per-variant limit, capped at 10 minutes.
func checkWall(tasks []*pool.Task) time.Duration {
	var d time.Duration
	for _, t := range tasks {
		d += t.Timeout() + 4*min(t.Timeout(), maxVariantWall)
	}
	return min(max(d, 2*time.Minute), 10*time.Minute)
}

// RunMutantCheck runs the mutant check of tasks in one sandbox run in env
// (docs/mutants.md §1) and returns one TaskCheck per task, in order, with
// Digest, Version, the script's outcome and Status set (Reference is left
// ""). Tasks that share a run must not install anything into a library
// (Task.HiddenSetup): each variant runs in a fresh namespace, but modules
// are shared. A task the run did not finish gets Status CheckError. The
// error is non-nil only when the sandbox itself failed.
func RunMutantCheck(ctx context.Context, runner sandbox.Runner, env *sandbox.Environment, memory int64, tasks []*pool.Task) ([]TaskCheck, error) {
	cs, _, err := runMutantCheck(ctx, runner, env, memory, tasks, nil)
	return cs, err
}

// maxCrashRetries bounds the reruns of a task whose check died while a
// mutant ran (a sibling called with the reference's arguments can kill
// the interpreter); each rerun skips the mutants that died before.
const maxCrashRetries = 3

// runMutantCheck is RunMutantCheck with the mutants each task must skip
// (by task id); it also returns, by task id, the mutant that was running
// when the run died.
func runMutantCheck(ctx context.Context, runner sandbox.Runner, env *sandbox.Environment, memory int64, tasks []*pool.Task, skip map[string][][2]string) ([]TaskCheck, map[string][2]string, error) {
	jobs := make([]mutantJob, len(tasks))
	for i, t := range tasks {
		jobs[i] = jobOf(t)
		jobs[i].Skip = skip[t.TaskID]
	}
	input, err := json.Marshal(map[string]any{"tasks": jobs})
	if err != nil {
		return nil, nil, err
	}
	if memory <= 0 {
		memory = DefaultMemory
	}
	spec := sandbox.Spec{
		Environment: env,
		Files: []sandbox.File{
			{Path: "main.py", Data: mutantCheckPy},
			{Path: "input.json", Data: input},
		},
		Limits: sandbox.Limits{Wall: checkWall(tasks), Memory: memory},
	}
	res, err := runner.Run(ctx, spec)
	if err != nil {
		return nil, nil, fmt.Errorf("mutant check: %w", err)
	}
	var reps []mutantReport
	if data, ok := res.Outputs["mutants.json"]; ok {
		if err := json.Unmarshal(data, &reps); err != nil {
			return nil, nil, fmt.Errorf("mutant check: decode output: %w", err)
		}
	}
	running := map[string][2]string{}
	byID := map[string]mutantReport{}
	for _, r := range reps {
		byID[r.TaskID] = r
	}
	why := "the check script stopped"
	switch {
	case res.TimedOut:
		why = fmt.Sprintf("the check timed out after %s", spec.Limits.Wall)
	case len(res.Stderr) > 0:
		why += ": " + lastLine(string(res.Stderr))
	}
	out := make([]TaskCheck, len(tasks))
	for i, t := range tasks {
		c := TaskCheck{TaskID: t.TaskID, Digest: TaskDigest(t), Version: MutantCheckVersion}
		if r, ok := byID[t.TaskID]; ok {
			c.Script, c.ReferenceError = r.Reference, r.ReferenceError
			c.Outputs, c.Mutants, c.Notes = r.Outputs, r.Mutants, r.Notes
			c.ValueAssertions, c.StructuralAssertions = r.ValueAssertions, r.StructuralAssertions
			if !r.Done {
				c.Error = why
				if r.Running != nil && !res.TimedOut {
					running[t.TaskID] = *r.Running
					c.Error += fmt.Sprintf(" while mutant %s (%s) ran", r.Running[0], r.Running[1])
				}
			}
		} else {
			c.Error = why
		}
		c.settle()
		out[i] = c
	}
	return out, running, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// CheckMutants runs the mutant check of tasks in their environments,
// batched as [RunMutantCheck] allows (tasks with a hidden setup alone),
// and returns one TaskCheck per task, in order. It does not evaluate the
// reference through the full harness (see [CheckPool]).
func (h *Harness) CheckMutants(ctx context.Context, tasks []*pool.Task) ([]TaskCheck, error) {
	out := make([]TaskCheck, len(tasks))
	for _, b := range mutantBatches(tasks, 1) {
		env, err := h.environment(tasks[b[0]])
		if err != nil {
			return nil, err
		}
		ts := make([]*pool.Task, len(b))
		for i, k := range b {
			ts[i] = tasks[k]
		}
		cs, err := RunMutantCheck(ctx, h.cfg.Runner, env, h.cfg.Memory, ts)
		if err != nil {
			return nil, err
		}
		for i, k := range b {
			out[k] = cs[i]
		}
	}
	return out, nil
}

// mutantBatches groups task indices into runs of at most size tasks that
// share an environment; a task with a hidden setup runs alone.
func mutantBatches(tasks []*pool.Task, size int) [][]int {
	var out [][]int
	open := map[string]int{} // environment key -> index in out of its open batch
	for i, t := range tasks {
		if t.HiddenSetup != "" || size <= 1 {
			out = append(out, []int{i})
			continue
		}
		key := t.Library + "\x00" + t.Environment
		if j, ok := open[key]; ok && len(out[j]) < size {
			out[j] = append(out[j], i)
			continue
		}
		open[key] = len(out)
		out = append(out, []int{i})
	}
	return out
}

// checkReference evaluates task's masked region through the full harness
// (as written: it is in the real library's names) and records the verdict
// on c.
func (h *Harness) checkReference(ctx context.Context, task *pool.Task, ec *pool.ExpectedCalls, c *TaskCheck) error {
	c.ReferenceCalls, c.ReferenceHarness = callsDigest(ec), ScriptsDigest()
	if task.SpyNeeded() && (ec == nil || ec.Status != pool.CallsOK) {
		c.Reference = "no call records"
		if ec != nil {
			c.Reference = "call records " + ec.Status
		}
		c.settle()
		return nil
	}
	v, err := h.Evaluate(ctx, Untranslated(task), ec, "```python\n"+task.MaskedRegion+"\n```")
	if err != nil && !errors.Is(err, ErrRefused) {
		return err
	}
	if v.Passed {
		c.Reference = "pass"
	} else {
		c.Reference = strings.TrimSpace(v.Status + " " + v.Label)
		msg := v.Error
		if len(msg) > 300 {
			msg = msg[len(msg)-300:]
		}
		c.ReferenceError = strings.TrimSpace(msg)
	}
	c.settle()
	return nil
}

// noMutant says why no mutant applies to a CheckNoMutant task: none could
// be made (the script's notes say why: a HumanEval-style task names no
// API, and a completion that defines a function assigns no output), or
// each raised or equalled the reference.
func (c *TaskCheck) noMutant() string {
	if len(c.Mutants) == 0 {
		return "none could be made (" + strings.Join(c.Notes, "; ") + ")"
	}
	return "each raised or equalled the reference"
}
