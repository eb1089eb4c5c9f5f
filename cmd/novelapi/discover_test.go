package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runArgs runs the binary's run function in-process with NOVELAPI_HOME=home.
func runArgs(t *testing.T, home string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), append([]string{"--home", home}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// fakeEnv writes a manifest-only environment (enough for the checks that
// run before any sandbox).
func fakeEnv(t *testing.T, home, name, manifest string) {
	t.Helper()
	dir := filepath.Join(home, "envs", name)
	if err := os.MkdirAll(filepath.Join(dir, "rootfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverCmd_BadInput(t *testing.T) {
	home := t.TempDir()
	fakeEnv(t, home, "only-scipy", `{"name":"only-scipy","suite":"trixie","libraries":["scipy"],"versions":{"scipy":"1.15.3"}}`)
	fakeEnv(t, home, "sid-two", `{"name":"sid-two","suite":"sid","libraries":["scipy","torch"],"versions":{"scipy":"1.17.1"},
		"installed":[{"name":"scipy","packages":["python3-scipy"],"dist":"scipy","imports":["scipy"],"import":"scipy","version":"1.17.1"},
		{"name":"torch","packages":["python3-torch"],"dist":"torch","imports":["torch"],"import":"torch","version":"2.14.1","error":"import torch: ImportError: libgomp.so.1"}]}`)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"NoLibrary", []string{"discover"}, 2, "--library is required"},
		{"UnknownLibrary", []string{"discover", "--library", "nosuchlib", "--new-env", "only-scipy", "--no-old"}, 2, `unknown library "nosuchlib"`},
		{"EnvLacksPackageLibrary", []string{"discover", "--library", "boltons", "--new-env", "sid-two", "--no-old"}, 1,
			"environment sid-two lacks library boltons (it has: scipy, torch)"},
		{"LibraryDoesNotLoad", []string{"discover", "--library", "torch", "--new-env", "sid-two", "--no-old"}, 1,
			"library torch does not load in environment sid-two (sid): import torch: ImportError"},
		{"UnknownEnv", []string{"discover", "--library", "numpy", "--new-env", "nope", "--no-old"}, 1, `unknown environment "nope"`},
		{"EnvLacksLibrary", []string{"discover", "--library", "numpy", "--new-env", "only-scipy", "--no-old"}, 1,
			"environment only-scipy lacks library numpy"},
		{"ExtractNoCandidates", []string{"extract"}, 2, "--candidates is required"},
		{"ExtractMissingFile", []string{"extract", "--candidates", filepath.Join(home, "none.jsonl")}, 1, "none.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runArgs(t, home, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.wantCode, tt.wantErr)
			}
		})
	}
}

func TestExtractCmd_MalformedCandidates(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "c.jsonl")
	os.WriteFile(path, []byte(`{"api_name":"numpy.unstack","kind":"function"}`+"\n{not json\n"), 0o644)
	code, _, stderr := runArgs(t, home, "extract", "--candidates", path, "--env", "missing")
	if code != 1 || !strings.Contains(stderr, "c.jsonl:2") {
		t.Errorf("exit %d, stderr %q; want the file and line of the bad record", code, stderr)
	}
}
