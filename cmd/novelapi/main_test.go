package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/private/privatetest"
)

// TestRun_JSONFailure: under --json a failing command still prints one
// JSON object on stdout, with the error, the exit code and what was done
// (up's figures so far, what add had read), and exits non-zero; without
// --json stdout stays empty.
func TestRun_JSONFailure(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
		wantKeys []string // fields of what was done
	}{
		{"UpUnknownPreset", []string{"up", "--no-serve", "--json", "--libraries", "@nope"}, 1, `unknown library preset "@nope"`, nil},
		{"UpStageFails", []string{"up", "--no-serve", "--json", "--libraries", "boltons", "--old-suite", "bogus"}, 1,
			`stage environment: unknown suite "bogus"`, []string{"paths", "libraries", "stages"}},
		{"AddNoProject", []string{"add", t.TempDir(), "--json"}, 1, "not a Python project", nil},
		{"AddUsage", []string{"add", "--json"}, 2, "accepts 1 arg(s)", nil},
		{"RmUnknown", []string{"rm", "boltons", "--json"}, 1, "no private library boltons was added (added: none)", nil},
		{"SearchNoIndex", []string{"search", "--json", "--index", filepath.Join(t.TempDir(), "none"), "cumulative sum"}, 1, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			code, stdout, stderr := runArgs(t, home, tt.args...)
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("novelapi %v: exit %d, stdout %q is no JSON object (%v); stderr:\n%s", tt.args, code, stdout, err, stderr)
			}
			msg, _ := got["error"].(string)
			if code != tt.wantCode || got["exit_code"] != float64(tt.wantCode) || msg == "" || !strings.Contains(msg, tt.wantErr) ||
				!strings.Contains(stderr, msg) {
				t.Errorf("novelapi %v: exit %d, JSON error %q, exit_code %v; want exit %d and an error with %q, as on stderr:\n%s",
					tt.args, code, msg, got["exit_code"], tt.wantCode, tt.wantErr, stderr)
			}
			for _, k := range tt.wantKeys {
				if _, ok := got[k]; !ok {
					t.Errorf("novelapi %v: JSON lacks %q: %s", tt.args, k, stdout)
				}
			}
			plain := slicesWithout(tt.args, "--json")
			if code, stdout, _ := runArgs(t, t.TempDir(), plain...); code != tt.wantCode || stdout != "" {
				t.Errorf("novelapi %v: exit %d, stdout %q; want exit %d and nothing on stdout", plain, code, stdout, tt.wantCode)
			}
		})
	}
}

// TestAddCmd_JSONFailureSaysWhatWasRead: an add that fails after reading
// the library (Debian's jsonlines 4.0.0 as a wheel, over trixie-sci, which
// lacks the attrs it depends on) names it in --json's object.
func TestAddCmd_JSONFailureSaysWhatWasRead(t *testing.T) {
	st := privatetest.Store(t, "trixie-sci")
	wheel := privatetest.Wheel(t, privatetest.Installed(t, "trixie", "python3-jsonlines"), t.TempDir(), "py3-none-any")
	code, stdout, stderr := runArgs(t, filepath.Dir(st.Dir), "add", wheel, "--env", "trixie-sci", "--json")
	var got struct {
		Error    string `json:"error"`
		ExitCode int    `json:"exit_code"`
		Library  string `json:"library"`
		Version  string `json:"version"`
		Kind     string `json:"kind"`
		Bundles  int    `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("exit %d, stdout %q: %v\n%s", code, stdout, err, stderr)
	}
	if code != 1 || got.ExitCode != 1 || !strings.Contains(got.Error, "jsonlines needs python3-attr, which environment trixie-sci lacks") ||
		got.Library != "jsonlines" || got.Version != "4.0.0" || got.Kind != "wheel" || got.Bundles != 0 {
		t.Errorf("exit %d, JSON %+v; want exit 1, the missing dependency, and jsonlines 4.0.0 (wheel) read, nothing served", code, got)
	}
}

func slicesWithout(xs []string, drop string) []string {
	var out []string
	for _, x := range xs {
		if x != drop {
			out = append(out, x)
		}
	}
	return out
}

// TestBundlesFlag_OtherFile: a task pool's tasks.jsonl handed to --bundles
// is refused, naming the file and line and saying it looks like a tasks
// file; a bundles file handed to --tasks likewise.
func TestBundlesFlag_OtherFile(t *testing.T) {
	const tasks = "../../evalharness/testdata/tasks/tasks.jsonl"
	const bundlesFile = "../../bundles/testdata/fixture/bundles.jsonl"
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"IndexBuild", []string{"index", "build", "--bundles", tasks, "--index", filepath.Join(dir, "idx")}, tasks + ":1: not a bundle: it has task_id and test_harness, as a line of a task pool's tasks.jsonl has"},
		{"TasksBuild", []string{"tasks", "build", "--bundles", tasks, "--env", "trixie-sci", "--out", filepath.Join(dir, "pool", "tasks.jsonl")}, tasks + ":1: not a bundle"},
		{"Render", []string{"render", "--bundles", tasks, "--api", "numpy.cumulative_sum", "--condition", "S"}, tasks + ":1: not a bundle"},
		{"EvalRunTasks", []string{"eval", "run", "--tasks", bundlesFile, "--predictions", bundlesFile, "--out", filepath.Join(dir, "run")}, bundlesFile + ":1: not a task: it has no task_id, and s_name and s_param, as a line of bundles.jsonl has"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runArgs(t, t.TempDir(), tt.args...)
			if code != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("novelapi %v: exit %d, stderr:\n%s\nwant exit 1 and %q", tt.args, code, stderr, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "idx")); err == nil {
		t.Errorf("index build from a tasks file left an index")
	}
}

// TestJSONFlag_AfterBadFlag: a flag-parse error under --json prints the
// JSON error object on stdout wherever --json stands: cobra stops parsing
// at the bad flag, before a --json after it is seen.
func TestJSONFlag_AfterBadFlag(t *testing.T) {
	const tasks = "../../evalharness/testdata/tasks/tasks.jsonl"
	out := filepath.Join(t.TempDir(), "run")
	tests := []struct {
		name     string
		args     []string
		wantJSON bool
	}{
		{"JSONFirst", []string{"eval", "run", "--json", "--tasks", tasks, "--predictions", tasks, "--out", out, "--bogus"}, true},
		{"JSONLast", []string{"eval", "run", "--tasks", tasks, "--predictions", tasks, "--out", out, "--bogus", "--json"}, true},
		{"JSONEqualsTrue", []string{"eval", "run", "--tasks", tasks, "--bogus", "--json=true"}, true},
		{"JSONFalse", []string{"eval", "run", "--tasks", tasks, "--bogus", "--json=false"}, false},
		{"AfterDashDash", []string{"eval", "run", "--bogus", "--", "--json"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(t, t.TempDir(), tt.args...)
			if code != 2 || !strings.Contains(stderr, "unknown flag: --bogus") {
				t.Fatalf("exit %d, stderr %q; want 2 and the unknown flag", code, stderr)
			}
			var got struct {
				Error    string `json:"error"`
				ExitCode int    `json:"exit_code"`
			}
			if !tt.wantJSON {
				if stdout != "" {
					t.Errorf("stdout %q; want nothing without --json", stdout)
				}
				return
			}
			if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.ExitCode != 2 || !strings.Contains(got.Error, "unknown flag: --bogus") {
				t.Errorf("stdout %q (%v); want the JSON error object with exit_code 2", stdout, err)
			}
		})
	}
}
