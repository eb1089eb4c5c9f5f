package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/ulikunitz/xz"
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
		{"BuildUnknownSuite", []string{"build", "--suite", "jessie"}, 1, "", "known: bookworm, trixie, sid, experimental"},
		{"BuildUnknownPreset", []string{"build", "--suite", "trixie", "--libraries", "@big"}, 1, "", "@sci, @wide"},
		{"BuildHelpNamesPresets", []string{"build", "--help"}, 0, "@wide (numpy, scipy, pandas, django", ""},
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

// seedIndexes puts debenv's real Packages excerpts where the store under
// home caches the suites' indexes, so commands read them without the
// network.
func seedIndexes(t *testing.T, home string, suites ...string) {
	t.Helper()
	s := debenv.OpenStore(home)
	for _, su := range suites {
		data, err := os.ReadFile(filepath.Join("..", "..", "debenv", "testdata", "packages", su+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, err := xz.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		p := s.IndexPath(su, "")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEnvCmd_Libraries covers what a user sees for library names, from the
// suites' real package indexes (excerpts).
func TestEnvCmd_Libraries(t *testing.T) {
	home := t.TempDir()
	seedIndexes(t, home, "trixie", "sid", "experimental")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    []string
		wantStderr []string
	}{
		{"BuildUnknownLibrary", []string{"build", "--suite", "trixie", "--libraries", "numpy,boltonz"}, 1, nil,
			[]string{`Debian trixie has no package for "boltonz"`, "nearest: python3-boltons"}},
		{"BuildNotPython", []string{"build", "--suite", "sid", "--libraries", "less"}, 1, nil,
			[]string{`library "less"`, "not a Python 3 package"}},
		{"Resolve", []string{"resolve", "--suite", "trixie,sid,experimental", "--libraries", "pandas,django,boltons"}, 0,
			[]string{"pandas   python3-pandas   2.2.3+dfsg-9        2.3.3+dfsg-6  3.0.5+dfsg-1",
				"django   python3-django   3:4.2.28-0+deb13u2  3:5.2.18-2    3:6.1.1-1",
				"boltons  python3-boltons  25.0.0-1            26.2.0-1      26.2.0-1"}, nil},
		{"ResolveMissingInOneSuite", []string{"resolve", "--suite", "trixie,sid", "--libraries", "scikit-learn,litestar"}, 1,
			[]string{"scikit-learn  python3-sklearn   1.4.2+dfsg-8  1.9.0+dfsg-2", "litestar      python3-litestar  -"},
			[]string{`Debian trixie has no package for "litestar"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"env", "--home", home}, tt.args...)
			code := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.wantCode, stderr.String())
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout %q does not contain %q", stdout.String(), w)
				}
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not contain %q", stderr.String(), w)
				}
			}
		})
	}
}
