package evalharness_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
)

func TestRun_ResumeChangedPredictions(t *testing.T) {
	tasks, preds := fakePool(4)
	dir := t.TempDir()
	h := &fakeHarness{flaky: map[string]bool{}}
	cfg := evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Workers: 2, Harness: h}
	if _, err := evalharness.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	before := h.calls.Load()
	changed := *preds[1]
	changed.Samples = []string{"pass"} // was "crash"
	cfg.Predictions = append(append([]*pool.Prediction{}, preds[:1]...), &changed)
	cfg.Predictions = append(cfg.Predictions, preds[2:]...)
	s, err := evalharness.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.calls.Load() - before; got != 1 {
		t.Errorf("resume evaluated %d samples; want 1 (the changed task only)", got)
	}
	rs := readLines(t, filepath.Join(dir, pool.ResultsFile))
	if len(rs) != 4 {
		t.Fatalf("results.jsonl has %d records; want 4", len(rs))
	}
	for _, r := range rs {
		if r.TaskID == "t001" && !r.Passed {
			t.Errorf("t001 kept its old verdict %s", r.Status)
		}
	}
	if s.Passed != 3 { // t000, t001 (changed), t003
		t.Errorf("passed = %d; want 3", s.Passed)
	}

	// --rescore re-scores everything even when nothing changed.
	before = h.calls.Load()
	cfg.Rescore = true
	if _, err := evalharness.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if h.calls.Load() == before {
		t.Error("Rescore evaluated nothing")
	}
}

func TestRun_ScoreMissing(t *testing.T) {
	tasks, preds := fakePool(8)
	dir := t.TempDir()
	cfg := evalharness.RunConfig{Tasks: tasks, Predictions: preds[:5], OutDir: dir, Harness: &fakeHarness{flaky: map[string]bool{}}, ScoreMissing: true}
	s, err := evalharness.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 8 || s.NoPrediction != 3 || s.Statuses[pool.StatusNoPrediction] != 3 {
		t.Errorf("summary n=%d no_prediction=%d statuses=%v; want 8, 3, NO_PREDICTION 3", s.N, s.NoPrediction, s.Statuses)
	}
	for _, r := range readLines(t, filepath.Join(dir, pool.ResultsFile)) {
		if r.Status == pool.StatusNoPrediction && (r.Passed || r.Label != pool.LabelWrongAPISelection || r.Rule != "novelapi:no-prediction") {
			t.Errorf("%s: %+v; want a failure labelled WrongAPISelection by novelapi:no-prediction", r.TaskID, r)
		}
	}

	cfg.Predictions, cfg.OutDir = nil, t.TempDir()
	if _, err := evalharness.Run(t.Context(), cfg); !errors.Is(err, evalharness.ErrNoPredictions) {
		t.Errorf("Run without predictions = %v; want ErrNoPredictions", err)
	}
}

func TestSummary_Keys(t *testing.T) {
	tasks, preds := fakePool(6)
	dir := t.TempDir()
	if _, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Harness: &fakeHarness{flaky: map[string]bool{}}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, pool.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pass_at_1", "pass_at_k_unbiased", "statuses", "note", "no_prediction"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	if _, ok := m["pass_at_k"]; ok {
		t.Error("summary.json still has the ambiguous pass_at_k")
	}
}

func TestCheckExpected(t *testing.T) {
	tasks, preds := fakePool(3)
	err := evalharness.CheckExpected(tasks, preds, map[string]*pool.ExpectedCalls{"t000": {Status: pool.CallsOK}})
	me, ok := errors.AsType[*evalharness.MissingExpectedError](err)
	if !ok || len(me.Tasks) != 2 {
		t.Fatalf("CheckExpected = %v; want 2 tasks without records", err)
	}
}
