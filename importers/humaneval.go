package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

// A HumanEvalRecord is one line of a HumanEval-style pool (Chen et al.
// 2021, openai/human-eval data format; APICoder's PandasEval, NumpyEval,
// MonkeyEval and BeatNumEval use the same fields).
type HumanEvalRecord struct {
	TaskID string `json:"task_id"`
	// Prompt is the code a completion continues: imports, helpers, then
	// "def <entry_point>(...):" and its docstring, or, without a function,
	// module code that may stop in the middle of a statement (`new_df = `).
	Prompt string `json:"prompt"`
	// CanonicalSolution is the text that completes Prompt: a string, or
	// (APICoder) a list of alternatives, of which the first is the reference.
	CanonicalSolution Solutions `json:"canonical_solution"`
	Test              string    `json:"test"` // defines check(candidate), or check() without an entry point
	// EntryPoint names the function check receives; "none" (APICoder) means
	// the prompt defines none and the test runs check().
	EntryPoint string `json:"entry_point"`
}

// Solutions is a canonical solution given as one string or as a list of
// alternatives (APICoder's pools).
type Solutions []string

// UnmarshalJSON accepts a string or an array of strings.
func (s *Solutions) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = Solutions{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("canonical_solution is neither a string nor a list of strings")
	}
	*s = many
	return nil
}

// NoEntryPoint is the entry_point of APICoder's tasks without a function:
// the harness calls check() with no argument.
const NoEntryPoint = "none"

// HumanEvalConfig configures [ImportHumanEval]. The zero value works.
type HumanEvalConfig struct {
	// Library is the tasks' library key; "" means "humaneval".
	Library string
	// Environment is the environment the tasks name; "" means
	// evalharness.DefaultEnvironment.
	Environment string
	// Original and Keywords import a renamed pool (APICoder's MonkeyEval,
	// BeatNumEval): Original is the pool it renames (PandasEval,
	// NumpyEval; the same task ids) and Keywords its keyword table
	// ([ReadKeywordTable]). The original harness runs the original
	// record's prompt and test with the renamed completion translated back
	// ([KeywordTable.ConvertBack]); both or neither must be set.
	Original, Keywords string
}

// HumanEvalOrigin is Task.Origin of imported HumanEval-style tasks.
const HumanEvalOrigin = pool.OriginHumanEval

// ImportHumanEval reads a HumanEval-style pool at path (JSONL, or gzipped
// JSONL when the name ends in .gz) and writes tasks into out with the spy
// requirement off (spy_required false, api_name empty): pass means the
// pool's tests pass, so the harness serves as a general executor. No
// bundles are written (the pool names no API).
//
// The tasks run the program the pool's own harness runs
// (openai/human-eval execution.py; APICoder private_eval/execution.py):
// prompt + completion + "\n" + test + "\n" + "check(<entry_point>)", or
// "check()" for entry_point "none". The prompt is cut where the completion's
// code starts ([splitPrompt]): what comes before is the context, kept
// verbatim; the reference (masked_region) is the rest of the prompt
// followed by the canonical solution, joined exactly; the execution test is
// the test and the check call. A model's completion continues the prompt
// as the pool's does: the task carries the rest of the prompt
// (prompt_rest; for a renamed pool renamed_rest and original_rest), with
// which the harness joins it as that harness does
// ([pool.Task.ContinuesPrompt]). docs/importers.md has the field table.
func ImportHumanEval(path, out string, cfg HumanEvalConfig) (Stats, error) {
	recs, err := readRecords[HumanEvalRecord](path)
	if err != nil {
		return Stats{}, err
	}
	if (cfg.Original == "") != (cfg.Keywords == "") {
		return Stats{}, errors.New("importers: a renamed pool needs both the original pool and the keyword table")
	}
	var (
		originals map[string]HumanEvalRecord
		table     KeywordTable
	)
	if cfg.Original != "" {
		if table, err = ReadKeywordTable(cfg.Keywords); err != nil {
			return Stats{}, err
		}
		orig, err := readRecords[HumanEvalRecord](cfg.Original)
		if err != nil {
			return Stats{}, err
		}
		originals = make(map[string]HumanEvalRecord, len(orig))
		for _, r := range orig {
			originals[r.TaskID] = r
		}
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
		if r.TaskID == "" || r.EntryPoint == "" || strings.TrimSpace(r.Test) == "" || len(r.CanonicalSolution) == 0 {
			return Stats{}, &jsonl.ParseError{Path: path, Line: i + 1, Err: errors.New("record needs task_id, entry_point, canonical_solution and test")}
		}
		id := "he_" + safeID(r.TaskID)
		if seen[id] {
			return Stats{}, &jsonl.ParseError{Path: path, Line: i + 1, Err: fmt.Errorf("duplicate task id %q", id)}
		}
		seen[id] = true
		var t *Task
		if originals == nil {
			t = humanEvalTask(id, lib, cfg.Environment, r.Prompt, r, r.CanonicalSolution[0])
		} else {
			o, ok := originals[r.TaskID]
			if !ok {
				return Stats{}, &jsonl.ParseError{Path: path, Line: i + 1, Err: fmt.Errorf("task %q is not in the original pool %s", r.TaskID, cfg.Original)}
			}
			t = renamedTask(id, lib, cfg.Environment, r, o, table)
		}
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

// checkCall returns the call the HumanEval-style harness appends after the
// test: check(<entry>), or check() when the pool has no entry point.
func checkCall(entry string) string {
	if entry == "" || entry == NoEntryPoint {
		return "check()"
	}
	return "check(" + entry + ")"
}

// humanEvalTask builds the task of a HumanEval-style record without a
// spy. run is the record whose prompt and test the harness runs and
// solution the completion it runs them with; shown is the prompt the
// solver reads.
func humanEvalTask(id, lib, env, shown string, run HumanEvalRecord, solution string) *Task {
	entry := run.EntryPoint
	test := run.Test + "\n" + checkCall(entry)
	ctx, rest := splitPrompt(run.Prompt, entry)
	off := false
	et := &pool.Task{
		TaskID: id, Library: lib, Description: strings.TrimSpace(shown),
		ContextCode: ctx, PromptRest: rest, MaskedRegion: rest + solution, ReferenceSolution: run.Prompt + solution,
		Environment: env, Generator: "import:" + lib, SpyRequired: &off,
		TestHarness: pool.TestHarness{ExecutionTest: test, GenerationMethod: "import:" + lib, ScenariosSucceeded: 1, ScenariosTotal: 1},
	}
	if entry != NoEntryPoint {
		et.EntryPoint = entry
	}
	return &Task{Task: et, OriginalPrefix: run.Prompt + solution, UnitTests: []string{test}}
}

// renamedTask builds the task of a renamed pool's record r (MonkeyEval,
// BeatNumEval) whose original (PandasEval, NumpyEval) is o, as APICoder's
// harness runs it: o's prompt and test with r's completion translated back
// (table.ConvertBack). The solver reads r's prompt, which names a library
// the environment does not have, so the context that runs is o's, as a
// hidden setup; the masked region is the rest of o's prompt + the
// translated solution, and the task carries the table and both prompts'
// rests, with which the harness translates a model's completion the same
// way ([pool.Task.Keywords]).
func renamedTask(id, lib, env string, r, o HumanEvalRecord, table KeywordTable) *Task {
	solution := r.CanonicalSolution[0]
	t := humanEvalTask(id, lib, env, r.Prompt, o, table.ConvertBack(solution))
	ctx, rest := splitPrompt(o.Prompt, o.EntryPoint)
	_, renamedRest := splitPrompt(r.Prompt, r.EntryPoint)
	t.HiddenSetup, t.ContextCode, t.PromptRest = ctx, "", ""
	t.Keywords = table
	t.RenamedPrompt, t.RenamedRest, t.OriginalRest = r.Prompt, renamedRest, rest
	t.RenamedReference = renamedRest + solution
	return t
}
