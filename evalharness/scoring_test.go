package evalharness_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// A task of a HumanEval-style pool without a prediction is missing, not
// failed: no label, in no rate, counted and named in the summary, as
// openai/human-eval averages pass@k over the problems with a sample; a
// native task without one still counts as a failure (protocol §1.8), and
// the summary says which tasks the rates are over.
func TestRun_MissingHumanEval(t *testing.T) {
	tasks, preds := fakePool(8)
	for _, tk := range tasks[:7] {
		tk.Origin = pool.OriginHumanEval
	}
	dir := t.TempDir()
	cfg := evalharness.RunConfig{Tasks: tasks, Predictions: preds[:5], OutDir: dir, Harness: &fakeHarness{flaky: map[string]bool{}}, ScoreMissing: true}
	s, err := evalharness.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// t000..t004 predicted (pass, crash, wrong, pass, wrong); t005, t006
	// missing; t007 native, scored as a failure.
	if s.N != 6 || s.Passed != 2 || s.PassAt1 != 2.0/6 || s.NoPrediction != 1 || s.Missing != 2 ||
		!slices.Equal(s.MissingTasks, []string{"t005", "t006"}) || s.Statuses[pool.StatusNoPrediction] != 1 {
		t.Errorf("summary n=%d passed=%d pass@1=%v no_prediction=%d missing=%d %v statuses=%v; want 6, 2, 1/3, 1, 2 [t005 t006], NO_PREDICTION 1",
			s.N, s.Passed, s.PassAt1, s.NoPrediction, s.Missing, s.MissingTasks, s.Statuses)
	}
	if s.Labels[pool.LabelWrongAPISelection] != 1 || s.Labels[""] != 0 {
		t.Errorf("labels %v; want WrongAPISelection for t007 alone, no unlabelled task", s.Labels)
	}
	if !strings.Contains(s.Denominator, "over the 6 scored tasks") || !strings.Contains(s.Denominator, "1 tasks without a prediction scored as failures") ||
		!strings.Contains(s.Denominator, "2 tasks of HumanEval-style pools without a prediction are missing") {
		t.Errorf("denominator %q", s.Denominator)
	}
	for _, r := range readLines(t, filepath.Join(dir, pool.ResultsFile)) {
		missing := r.TaskID == "t005" || r.TaskID == "t006"
		if r.Missing != missing || (missing && (r.Label != "" || r.Status != pool.StatusNoPrediction || r.Passed)) {
			t.Errorf("%s: missing %v, label %q, status %s; want missing %v (no label, NO_PREDICTION)", r.TaskID, r.Missing, r.Label, r.Status, missing)
		}
	}
	// All of a HumanEval-style pool predicted but the missing: the rates
	// are over the predicted tasks only.
	cfg.Tasks, cfg.OutDir = tasks[:7], t.TempDir()
	s, err = evalharness.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	n, missing := 0, 0
	for _, m := range s.Library {
		n, missing = n+m.N, missing+m.Missing
	}
	if s.N != 5 || s.PassAt1 != 2.0/5 || s.NoPrediction != 0 || s.Missing != 2 || n != 5 || missing != 2 {
		t.Errorf("HumanEval-style pool: n=%d pass@1=%v no_prediction=%d missing=%d, by library n=%d missing=%d; want 5, 0.4, 0, 2, 5, 2",
			s.N, s.PassAt1, s.NoPrediction, s.Missing, n, missing)
	}
	// The summary (and eval run's --json object) names the missing tasks
	// once, not again in each breakdown.
	if b, err := json.Marshal(s); err != nil || bytes.Count(b, []byte(`"missing_tasks"`)) != 1 {
		t.Errorf("summary JSON names missing_tasks %d times (%v); want once", bytes.Count(b, []byte(`"missing_tasks"`)), err)
	}
	// The missing tasks belong to the run's condition (the predictions'
	// one cell), in results.jsonl and by_condition: no empty-named one.
	if m, ok := s.Condition["S+E"]; len(s.Condition) != 1 || !ok || m.N != 5 || m.Missing != 2 {
		t.Errorf("by_condition %v; want S+E alone, n_tasks 5, missing 2", s.Condition)
	}
	for _, r := range readLines(t, filepath.Join(cfg.OutDir, pool.ResultsFile)) {
		if r.Condition != "S+E" {
			t.Errorf("%s: condition %q, want the run's S+E", r.TaskID, r.Condition)
		}
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
	for _, k := range []string{"pass_at_1", "pass_at_k_unbiased", "statuses", "note", "no_prediction", "missing", "denominator"} {
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
