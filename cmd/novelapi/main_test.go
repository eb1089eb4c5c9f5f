package main

import (
	"encoding/json"
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
