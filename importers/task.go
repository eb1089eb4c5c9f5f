package importers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

// A Task is one imported task: the protocol's task record
// (docs/protocol.md §1.3, [pool.Task], whose extension fields
// carry the hidden setup, bundle version, origin, group and spy scope) plus
// what [CheckReferences] needs to run the reference under the dataset's own
// assembly. It is written into tasks.jsonl next to the task's own fields;
// the harness ignores the fields below.
type Task struct {
	*pool.Task
	// OriginalPrefix is the dataset's own program up to its tests, with the
	// reference as the completion, exactly as its harness joins it:
	// HumanEval-style prompt + completion; CodeUpdateArena's imports,
	// implementation, update statement and solution. [OriginalPrograms]
	// runs OriginalPrefix + "\n" + each unit test.
	OriginalPrefix string `json:"original_prefix,omitempty"`
	// UnitTests are the dataset's tests as the original harness runs them,
	// each alone after OriginalPrefix: CodeUpdateArena's test and its call
	// (one program per unit test), HumanEval's test + "\n" + check(entry).
	UnitTests []string `json:"unit_tests,omitempty"`
}

// Files written by the importers into their output directory.
const (
	BundlesFile     = "bundles.jsonl"
	TasksFile       = "tasks.jsonl"
	ExpectedFile    = "expected_calls.jsonl"
	ReferenceFile   = "reference_predictions.jsonl"
	SkippedFile     = "skipped.jsonl"
	ImportStatsFile = "import.json"
)

// noRecords returns the expected-call record of an imported task: status ok
// with no records, so that evaluation runs the dataset's own tests without a
// call-record check (§4.5). The dataset's tests decide correctness.
func noRecords(t *pool.Task, source string) *pool.ExpectedCalls {
	return &pool.ExpectedCalls{
		TaskID: t.TaskID, APIName: t.APIName, Status: pool.CallsOK,
		Expected: nil, ReferenceSource: "none", NRuns: 0,
		Notes: []string{"imported from " + source + ": the dataset's unit tests decide; no call records"},
	}
}

// ReferencePredictions returns one prediction per task whose single sample
// is the task's reference completion, for C1 runs: evaluating them checks
// that every reference passes the harness (docs/protocol.md §4.1
// "Construction differences"). The sample is masked_region (else
// reference_solution) in a python fence; for a task that continues its
// prompt ([pool.Task.ContinuesPrompt]: HumanEval-style pools) it is the
// pool's own solution as the pool's harness receives it, the text that
// continues the prompt, unfenced (for a renamed pool in the names its
// solver uses, renamed_reference after renamed_rest, which the harness
// translates back), so that the harness joins it as that harness does.
func ReferencePredictions(tasks []*pool.Task) []*pool.Prediction {
	out := make([]*pool.Prediction, 0, len(tasks))
	for _, t := range tasks {
		sample := "```python\n" + strings.TrimRight(referenceCode(t), "\n") + "\n```"
		if c, ok := continuingReference(t); ok {
			sample = c
		}
		out = append(out, &pool.Prediction{
			TaskID: t.TaskID, APIName: t.APIName, Cell: "reference",
			Samples: []string{sample},
		})
	}
	return out
}

// referenceCode is the reference completion of t as a masked region:
// masked_region, else reference_solution; for a renamed pool
// renamed_reference.
func referenceCode(t *pool.Task) string {
	code := t.MaskedRegion
	if t.Renamed() && t.RenamedReference != "" {
		code = t.RenamedReference
	}
	if strings.TrimSpace(code) == "" {
		code = t.ReferenceSolution
	}
	return code
}

// continuingReference returns the reference of a task that continues its
// prompt ([pool.Task.ContinuesPrompt]) as the pool writes it: the text
// after the prompt (for a renamed pool, in the renamed names). ok is
// false for other tasks and for a reference that does not start with the
// prompt's rest.
func continuingReference(t *pool.Task) (string, bool) {
	ref, rest := t.MaskedRegion, t.PromptRest
	if t.Renamed() {
		ref, rest = t.RenamedReference, t.RenamedRest
	}
	if !t.ContinuesPrompt() || rest == "" || !strings.HasPrefix(ref, rest) || len(ref) == len(rest) {
		return "", false
	}
	return ref[len(rest):], true
}

// A Skipped names a record the importer left out and why.
type Skipped struct {
	Line   int    `json:"line"`              // 1-based line of the input file
	ID     string `json:"id"`                // the record's own id
	Reason string `json:"reason"`            // why it was left out
	Group  string `json:"group,omitempty"`   // dataset grouping (package)
	TaskID string `json:"task_id,omitempty"` // the id it would have had
}

// Stats summarises one import.
type Stats struct {
	Origin   string         `json:"origin"`
	Input    string         `json:"input"`
	Bundles  int            `json:"bundles"`
	Tasks    int            `json:"tasks"`
	Skipped  int            `json:"skipped"`
	PerGroup map[string]int `json:"tasks_per_group,omitempty"`
	OutDir   string         `json:"out_dir"`
}

// writePool writes bundles, tasks, expected calls, reference predictions and
// the skipped list into out (created if needed), each atomically.
func writePool(out string, bs []bundles.Bundle, tasks []*Task, expected []*pool.ExpectedCalls, skipped []Skipped) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if bs != nil {
		if err := bundles.WriteBundles(filepath.Join(out, BundlesFile), bs); err != nil {
			return err
		}
	}
	if err := jsonl.Write(filepath.Join(out, TasksFile), tasks); err != nil {
		return err
	}
	if err := pool.WriteExpectedCalls(filepath.Join(out, ExpectedFile), expected); err != nil {
		return err
	}
	plain := make([]*pool.Task, len(tasks))
	for i, t := range tasks {
		plain[i] = t.Task
	}
	if err := jsonl.Write(filepath.Join(out, ReferenceFile), ReferencePredictions(plain)); err != nil {
		return err
	}
	if skipped == nil {
		skipped = []Skipped{}
	}
	return jsonl.Write(filepath.Join(out, SkippedFile), skipped)
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// safeID maps s to a task id of letters, digits, '.', '_' and '-'.
func safeID(s string) string {
	return strings.Trim(unsafeID.ReplaceAllString(s, "_"), "_")
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// writeFile writes data to dir/name atomically.
func writeFile(dir, name string, data []byte) error {
	return atomicfile.Write(filepath.Join(dir, name), data, 0o644)
}
