package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
)

func TestResolveShard(t *testing.T) {
	tests := []struct {
		name    string
		spec    string
		env     map[string]string
		want    evalharness.Shard
		wantErr string
	}{
		{"None", "", nil, evalharness.Shard{}, ""},
		{"Explicit", "2/5", nil, evalharness.Shard{Index: 2, Count: 5}, ""},
		{"KubernetesWithCount", "auto/4", map[string]string{"JOB_COMPLETION_INDEX": "3"}, evalharness.Shard{Index: 3, Count: 4}, ""},
		{"KubernetesEnvCount", "auto", map[string]string{"JOB_COMPLETION_INDEX": "0", "NOVELAPI_SHARDS": "8"}, evalharness.Shard{Index: 0, Count: 8}, ""},
		{"KubernetesNoCount", "auto", map[string]string{"JOB_COMPLETION_INDEX": "0"}, evalharness.Shard{}, "shard count is unknown"},
		{"SlurmZeroBased", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"}, evalharness.Shard{Index: 2, Count: 3}, ""},
		{"SlurmOneBased", "auto", map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"}, evalharness.Shard{Index: 2, Count: 3}, ""},
		{"NoScheduler", "auto/4", nil, evalharness.Shard{}, "neither JOB_COMPLETION_INDEX"},
		{"OutOfRange", "auto/2", map[string]string{"JOB_COMPLETION_INDEX": "2"}, evalharness.Shard{}, "0 <= i < n"},
		{"Garbage", "x", nil, evalharness.Shard{}, "want i/n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveShard(tt.spec, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("resolveShard(%q) error = %v; want containing %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("resolveShard(%q) = %+v, %v; want %+v", tt.spec, got, err, tt.want)
			}
		})
	}
}

func TestEvalCmd_Usage(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"RunMissingFlags", []string{"eval", "run"}, 2, "required flag"},
		{"RunBadShard", []string{"eval", "run", "--tasks", "t", "--predictions", "p", "--out", "o", "--shard", "3/3"}, 2, "--shard"},
		{"RunBadSource", []string{"eval", "run", "--tasks", "t", "--predictions", "p", "--out", "o", "--source", "web"}, 2, "--source"},
		{"RunMissingTasks", []string{"eval", "run", "--tasks", "/nonexistent/tasks.jsonl", "--predictions", "p", "--out", "o"}, 1, "/nonexistent/tasks.jsonl"},
		{"MergeNoOut", []string{"eval", "merge", "a"}, 2, "required flag"},
		{"ReportMissing", []string{"eval", "report", "/nonexistent/run"}, 1, "/nonexistent/run"},
		{"SweepNeedsOut", []string{"eval", "report", "a", "b"}, 2, "--out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("exit %d, stderr %q; want %d containing %q", code, stderr.String(), tt.wantCode, tt.wantStderr)
			}
		})
	}
}

// The text summary names the tasks of HumanEval-style pools that had no
// prediction as missing and says which tasks the rates are over.
func TestPrintSummary_Missing(t *testing.T) {
	m := evalharness.Metrics{N: 3, Passed: 3, PassAt1: 1, Missing: 2, MissingTasks: []string{"he_a", "he_b"}, Labels: map[string]int{"Pass": 3}}
	var b strings.Builder
	if err := printSummary(&b, "run", evalharness.Summary{Metrics: m, Denominator: evalharness.Denominator(m)}, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 tasks, pass@1 100.0%", "2 tasks missing", "over the 3 scored tasks", "2 tasks of HumanEval-style pools without a prediction are missing"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "WrongAPISelection") {
		t.Errorf("summary labels the missing tasks:\n%s", b.String())
	}
}
