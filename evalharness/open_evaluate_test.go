package evalharness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// A pool copied without its expected_calls.jsonl cannot be evaluated: the
// error says where the records were looked for, before any sandbox run.
func TestPoolEvaluate_MissingRecords(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(tasksPath)
	if err != nil {
		t.Fatal(err)
	}
	tp := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(tp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := OpenPool(OpenConfig{Tasks: tp})
	if err != nil {
		t.Fatal(err)
	}
	preds := []*pool.Prediction{{TaskID: p.Tasks[0].TaskID, Samples: []string{"pass"}}}
	_, _, err = p.Evaluate(context.Background(), EvaluateConfig{Harness: &Harness{}, Run: RunConfig{Predictions: preds, OutDir: filepath.Join(dir, "run")}})
	me, ok := errors.AsType[*MissingExpectedError](err)
	if !ok {
		t.Fatalf("err = %v, want *MissingExpectedError", err)
	}
	if msg := me.Message(); !strings.Contains(msg, "no expected_calls.jsonl beside "+tp) || !strings.Contains(msg, p.Tasks[0].TaskID) {
		t.Errorf("message %q does not say where records were looked for and for which task", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); !os.IsNotExist(err) {
		t.Errorf("run directory made before the records were checked (stat: %v)", err)
	}
}

// The fixture pool, with its records beside it, runs its reference through
// Evaluate: the test check and the run both see the records.
func TestPoolEvaluate_Fixture(t *testing.T) {
	h := newTestHarness(t)
	// A copy: the test check writes its file beside the pool.
	dir := t.TempDir()
	for _, f := range []string{tasksPath, expectedPath} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := OpenPool(OpenConfig{Tasks: filepath.Join(dir, "tasks.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	if p.ExpectedPath == "" {
		t.Fatalf("no expected_calls.jsonl found beside %s", p.TasksPath)
	}
	task := p.Tasks[0]
	preds := []*pool.Prediction{{TaskID: task.TaskID, Samples: []string{task.ReferenceSolution}}}
	var checked *PoolCheck
	pc, s, err := p.Evaluate(context.Background(), EvaluateConfig{Harness: h,
		TestCheck: func(c *PoolCheck) { checked = c },
		Run:       RunConfig{Predictions: preds, OutDir: filepath.Join(t.TempDir(), "run")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(CheckPath(p.TasksPath)); err != nil {
		t.Errorf("the test check kept nothing beside the pool: %v", err)
	}
	if checked == nil || checked != pc {
		t.Errorf("TestCheck got %p, Evaluate returned %p", checked, pc)
	}
	if s.N != 1 || s.Passed != 1 {
		t.Errorf("reference of %s: %d of %d passed, want 1 of 1", task.TaskID, s.Passed, s.N)
	}
}
