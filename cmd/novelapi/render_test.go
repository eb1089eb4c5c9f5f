package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderCmd(t *testing.T) {
	const published = "../../bundles/testdata/formats/published.jsonl"
	task := filepath.Join(t.TempDir(), "task.json")
	if err := os.WriteFile(task, []byte(`{"task_id":"t1","api_name":"numpy.unstack","description":"Split it.","context_code":"import numpy as np"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string // prefix of stdout
		wantStderr string // substring of stderr
	}{
		{"Condition", []string{"--api", "numpy.unstack", "--condition", "S_name"}, 0, "API: numpy.unstack\n", ""},
		{"Prompt", []string{"--api", "numpy.unstack", "--condition", "S_name", "--prompt", "--task-json", task}, 0,
			"# Reference Documentation:\nAPI: numpy.unstack\n\n---\n\nimport numpy as np\n\n# Task:\nSplit it.\n", ""},
		{"Components", []string{"--api", "numpy.unstack", "--components", "S_param"}, 0, "Parameters:\n  - x (ndarray)", ""},
		{"BadCondition", []string{"--api", "numpy.unstack", "--condition", "S+X"}, 2, "", "valid: none, S_name"},
		{"UnknownAPI", []string{"--api", "numpy.nope"}, 1, "", "unknown API"},
		{"PromptWithoutTask", []string{"--api", "numpy.unstack", "--prompt"}, 2, "", "--task-json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"render", "--bundles", published}, tt.args...)
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.wantCode, stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), tt.wantOut) {
				t.Errorf("stdout %q, want prefix %q", stdout.String(), tt.wantOut)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestRenderCmd_BadLine(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"render", "--bundles", "../../bundles/testdata/formats/bad.jsonl", "--api", "a.six", "--condition", "S"},
		strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "bad.jsonl:3:") || !strings.Contains(stderr.String(), "--skip-bad") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = run(t.Context(), []string{"render", "--bundles", "../../bundles/testdata/formats/bad.jsonl", "--api", "a.six", "--condition", "S", "--skip-bad"},
		strings.NewReader(""), &stdout, &stderr)
	if code != 0 || stdout.String() != "API: a.six\n" || !strings.Contains(stderr.String(), "skipped=3") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestRenderCmd_TaskJSONOtherFile: a bundles file or a predictions file
// handed to --task-json is refused at its first line, naming the file, the
// line and the kind of file it looks like, instead of printing a prompt
// with an empty "# Task:"; a task pool's tasks.jsonl is accepted.
func TestRenderCmd_TaskJSONOtherFile(t *testing.T) {
	const published = "../../bundles/testdata/formats/published.jsonl"
	const preds = "testdata/predictions/numpyeval.jsonl"
	const tasks = "../../evalharness/testdata/tasks/tasks.jsonl"
	tests := []struct {
		name, taskJSON string
		wantCode       int
		want           string // substring of stderr, or prefix of the task part of stdout
	}{
		{"Bundles", published, 1, published + ":1: not a task: it has no description; it has s_name and s_param, as a line of bundles.jsonl has"},
		{"Predictions", preds, 1, preds + ":1: not a task: it has no description; it has task_id and samples, as a line of predictions.jsonl has"},
		{"Tasks", tasks, 0, "# Task:\nCompute the running totals"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"render", "--bundles", published, "--api", "numpy.unstack", "--condition", "S_name", "--prompt", "--task-json", tt.taskJSON}
			if tt.wantCode == 0 {
				args = append(args, "--task-id", "np_cumulative_sum_easy")
			}
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q stderr %s", code, tt.wantCode, stdout.String(), stderr.String())
			}
			got := stderr.String()
			if tt.wantCode == 0 {
				got = stdout.String()
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("output %q lacks %q", got, tt.want)
			}
		})
	}
}
