package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func writeMainPy(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "main.py")
	if err := os.WriteFile(p, []byte("print('ok')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExecCmd_BadLimits(t *testing.T) {
	// Refused before any environment or sandbox is touched.
	home, py := t.TempDir(), writeMainPy(t)
	tests := []struct {
		name    string
		flags   []string
		wantErr string
	}{
		{"TimeoutZero", []string{"--timeout", "0"}, `--timeout 0s: want a positive duration`},
		{"TimeoutNegative", []string{"--timeout", "-1s"}, `--timeout -1s: want a positive duration`},
		{"MemoryZero", []string{"--memory", "0"}, `--memory "0": want a positive size`},
		{"MemoryNegative", []string{"--memory", "-1GiB"}, `--memory "-1GiB": want a positive size`},
		{"MemoryNaN", []string{"--memory", "NaN"}, `--memory "NaN": want a positive size`},
		{"MemoryHuge", []string{"--memory", "1e30GiB"}, `--memory "1e30GiB": too large`},
		{"MemoryTiny", []string{"--memory", "1KiB"}, `--memory "1KiB": below the sandbox's minimum of 16MiB`},
		{"MemoryJustBelow", []string{"--memory", "16777215"}, `--memory "16777215": below the sandbox's minimum of 16MiB`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"exec", "--env", "trixie-sci"}, tt.flags...), py)
			code, stdout, stderr := runArgs(t, home, args...)
			if code != 2 || !strings.Contains(stderr, "novelapi: exec: "+tt.wantErr) || stdout != "" {
				t.Errorf("exec %v = exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.flags, code, stdout, stderr, tt.wantErr)
			}
		})
	}
}

func TestExecCmd_JSON_RealSandbox(t *testing.T) {
	sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	code, stdout, stderr := runArgs(t, sandboxtest.Home(), "exec", "--env", "trixie-sci", "--backend", backendArg(),
		"--timeout", "5s", "--memory", "16MiB", "--json", writeMainPy(t))
	if code != 0 {
		t.Fatalf("exec --json = exit %d, stderr %q", code, stderr)
	}
	var out struct {
		Stdout   string         `json:"stdout"`
		ExitCode int            `json:"exit_code"`
		Limits   map[string]any `json:"limits"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("exec --json output %q: %v", stdout, err)
	}
	if out.Stdout != "ok\n" || out.ExitCode != 0 {
		t.Errorf("stdout %q exit %d; want \"ok\\n\", 0", out.Stdout, out.ExitCode)
	}
	// snake_case names with their unit, as the rest of the JSON.
	want := map[string]float64{"wall_ns": 5e9, "memory_bytes": 16 << 20, "cpu_time_ns": 6e9, "pids": 64, "cpus": 1,
		"nofile": 256, "file_size_bytes": 16 << 20, "tmp_size_bytes": 64 << 20, "stream_cap_bytes": 1 << 20, "output_kill_bytes": 64 << 20}
	snake := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	for k, v := range out.Limits {
		if !snake.MatchString(k) {
			t.Errorf("limits key %q is not snake_case", k)
		}
		if w, ok := want[k]; ok && v != w {
			t.Errorf("limits[%q] = %v; want %v", k, v, w)
		}
	}
	for k := range want {
		if _, ok := out.Limits[k]; !ok {
			t.Errorf("limits has no %q (got %v)", k, out.Limits)
		}
	}
}
