package evalharness

import (
	"context"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// TestEvaluate_Adversarial runs completions that try to pass without a
// correct target call (the tester's preds2.jsonl) on the real sandbox.
func TestEvaluate_Adversarial(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	byID := map[string]*pool.Task{}
	for _, task := range tasks {
		byID[task.TaskID] = task
	}
	tests := []struct {
		name, task, code string
		wantStatus       string
		wantCalled       bool
		wantLabel        string
		wantErr          string // substring of Verdict.Error
	}{
		{"PatchedBuiltins", "np_matrix_norm_medium",
			"import builtins\nbuiltins.any = lambda *a, **k: True\nbuiltins.all = lambda *a, **k: True\nnorms = np.linalg.matrix_norm(stack*0, ord='fro', keepdims=True)",
			pool.StatusWrongAnswer, true, pool.LabelWrongLogic, "reproduces reference call"},
		{"ForgedRecords", "np_matrix_norm_medium",
			"norms = np.linalg.matrix_norm(stack*0, ord='fro', keepdims=True)\n_spy_check_calls = lambda *a: None\n_target_api_calls.extend([{}] * 5)",
			pool.StatusWrongAnswer, true, pool.LabelWrongLogic, "reproduces reference call"},
		{"WrittenCounter", "np_cumulative_sum_easy",
			"_target_api_call_count[0] = 5\nrunning = np.cumsum(np.concatenate([np.zeros((2,1)), daily], axis=1), axis=1)",
			pool.StatusHarnessTamper, false, pool.LabelWrongAPISelection, "wrote _target_api_call_count"},
		{"ReboundCounter", "np_cumulative_sum_easy",
			"_target_api_call_count = [5]\nrunning = np.cumsum(np.concatenate([np.zeros((2,1)), daily], axis=1), axis=1)",
			pool.StatusHarnessTamper, false, pool.LabelWrongAPISelection, "rebound _target_api_call_count"},
		{"ExitBeforeTest", "np_matrix_transpose_easy",
			"import os\nprint('PASSED')\nos._exit(0)",
			pool.StatusHarnessTamper, false, pool.LabelWrongAPISelection, ""},
		{"Honest", "np_matrix_norm_medium",
			byID["np_matrix_norm_medium"].MaskedRegion, pool.StatusPass, true, pool.LabelPass, ""},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := byID[tt.task]
			v, err := h.Evaluate(ctx, task, exp[task.TaskID], tt.code)
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tt.wantStatus || v.TargetCalled != tt.wantCalled || v.Label != tt.wantLabel || !strings.Contains(v.Error, tt.wantErr) {
				t.Errorf("Evaluate = status %s, called %v (%d calls), label %s (%s: %s), error %q; want %s, %v, %s, error with %q",
					v.Status, v.TargetCalled, v.SpyCalls, v.Label, v.Rule, v.Rationale, v.Error, tt.wantStatus, tt.wantCalled, tt.wantLabel, tt.wantErr)
			}
			if tt.wantStatus == pool.StatusHarnessTamper && (v.Rule != "novelapi:harness-tamper" || !strings.Contains(v.Rationale, "harness tamper")) {
				t.Errorf("tamper rule %q rationale %q; want novelapi:harness-tamper", v.Rule, v.Rationale)
			}
		})
	}
}

// TestCheckCode_Reasons checks check_code's account of runs without a
// normal verdict: each says why, none blames the spy.
func TestCheckCode_Reasons(t *testing.T) {
	h := newTestHarness(t)
	tests := []struct{ name, code, status, reason string }{
		{"Tamper", "import os\nos._exit(0)", pool.StatusHarnessTamper, "harness tamper"},
		{"Syntax", "x = (", pool.StatusCompileError, "does not compile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr, err := h.CheckCode(context.Background(), tt.code, "numpy.unstack", "numpy")
			if err != nil {
				t.Fatal(err)
			}
			if cr.Status != tt.status || cr.SpyReported || !strings.Contains(cr.Reason, tt.reason) {
				t.Errorf("CheckCode = status %s, spy reported %v, reason %q, label %s; want %s, false, reason with %q", cr.Status, cr.SpyReported, cr.Reason, cr.Label, tt.status, tt.reason)
			}
		})
	}
}
