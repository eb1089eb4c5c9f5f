package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

func TestEnvCmd(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "envs", "demo")
	if err := os.MkdirAll(filepath.Join(dir, "rootfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := sandbox.Manifest{Name: "demo", Suite: "trixie", Libraries: []string{"numpy"}, Python: "3.13.5",
		Versions: map[string]string{"numpy": "2.2.4"}, SizeBytes: 400 << 20, Key: "abc"}
	if err := debenv.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string // substring of stdout
		wantStderr string // substring of stderr
	}{
		{"List", []string{"list"}, 0, "numpy 2.2.4", ""},
		{"ListJSON", []string{"list", "--json"}, 0, `"python": "3.13.5"`, ""},
		{"Show", []string{"show", "demo"}, 0, "suite:     trixie", ""},
		{"ShowJSON", []string{"show", "demo", "--json"}, 0, `"name": "demo"`, ""},
		{"ShowMissing", []string{"show", "nope"}, 1, "", "unknown environment"},
		{"BuildNoSuite", []string{"build", "--libraries", "numpy"}, 2, "", "--suite is required"},
		{"BuildUnknownSuite", []string{"build", "--suite", "jessie"}, 1, "", "known: bookworm, trixie, sid"},
		{"BuildUnknownLibrary", []string{"build", "--suite", "trixie", "--libraries", "leftpad"}, 1, "", "known: ase"},
		{"Remove", []string{"rm", "demo"}, 0, "", ""},
		{"RemoveAgain", []string{"rm", "demo"}, 1, "", "unknown environment"},
		{"ListEmptyJSON", []string{"list", "--json"}, 0, "[]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"env", "--home", home}, tt.args...)
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tt.wantOut)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}
