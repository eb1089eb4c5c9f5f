package sandbox

import (
	"bytes"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCappedWriter_Write(t *testing.T) {
	tests := []struct {
		name        string
		max         int64
		writes      []int
		wantKept    int
		wantDropped int64
	}{
		{"UnderCap", 10, []int{3, 4}, 7, 0},
		{"ExactCap", 10, []int{10}, 10, 0},
		// piston PR #643: one write straddling the cap is cut exactly.
		{"StraddlingWrite", 1024, []int{5000}, 1024, 5000 - 1024},
		{"AfterCap", 4, []int{4, 3, 2}, 4, 5},
		{"ZeroCap", 0, []int{8}, 0, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newCappedWriter(tt.max, nil)
			var all []byte
			for i, n := range tt.writes {
				p := bytes.Repeat([]byte{byte('a' + i)}, n)
				all = append(all, p...)
				if got, err := w.Write(p); got != n || err != nil {
					t.Fatalf("Write(%d bytes) = %d, %v; want %d, nil", n, got, err, n)
				}
			}
			kept, dropped := w.result()
			if len(kept) != tt.wantKept || dropped != tt.wantDropped {
				t.Errorf("kept %d, dropped %d; want %d, %d", len(kept), dropped, tt.wantKept, tt.wantDropped)
			}
			if !bytes.Equal(kept, all[:len(kept)]) {
				t.Errorf("kept bytes are not the prefix of what was written")
			}
		})
	}
}

func TestOutputBudget_SharedAndFiresOnce(t *testing.T) {
	var fired int
	var mu sync.Mutex
	b := newOutputBudget(100, func() { mu.Lock(); fired++; mu.Unlock() })
	out, errw := newCappedWriter(10, b), newCappedWriter(10, b)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			out.Write(make([]byte, 10))
			errw.Write(make([]byte, 10))
		})
	}
	wg.Wait()
	if !b.hit() || fired != 1 {
		t.Errorf("hit %v, onExceed called %d times; want true, once (160 bytes > 100)", b.hit(), fired)
	}
	b2 := newOutputBudget(100, nil)
	newCappedWriter(1, b2).Write(make([]byte, 100))
	if b2.hit() {
		t.Errorf("budget hit at exactly the limit; want only beyond it")
	}
}

func TestClampRlimits(t *testing.T) {
	// P11: a request above the inherited hard limit is clamped, never an error.
	l := Limits{Stack: 64 << 20}.WithDefaults()
	hard := map[string]uint64{"stack": 8 << 20, "nofile": 1 << 20, "cpu": 5}
	rls := clampRlimits(&l, rlimitsFor(l), func(n string) (uint64, bool) { h, ok := hard[n]; return h, ok })
	got := map[string]rlimit{}
	for _, r := range rls {
		got[r.Name] = r
	}
	if r := got["stack"]; r.Soft != 8<<20 || r.Hard != 8<<20 || l.Stack != 8<<20 {
		t.Errorf("stack = %+v, Limits.Stack %d; want clamped to 8 MiB", r, l.Stack)
	}
	if r := got["nofile"]; r.Soft != DefaultNoFile || r.Hard != DefaultNoFile {
		t.Errorf("nofile = %+v; want %d (under the hard limit)", r, DefaultNoFile)
	}
	if r := got["cpu"]; r.Soft != 5 || r.Hard != 5 || l.CPUTime != 5*time.Second {
		t.Errorf("cpu = %+v, Limits.CPUTime %v; want 5/5 s (clamped from wall+1/wall+2)", r, l.CPUTime)
	}
	if r := got["core"]; r.Soft != 0 || r.Hard != 0 {
		t.Errorf("core = %+v; want 0", r)
	}
	if r := got["fsize"]; r.Soft != DefaultFileSize {
		t.Errorf("fsize = %+v; want %d", r, DefaultFileSize)
	}
}

func TestRunEnv_FixedVariablesWin(t *testing.T) {
	env := runEnv(Spec{Env: map[string]string{"PATH": "/evil", "HOME": "/root", "FOO": "bar", "TZ": "Europe/Paris"}})
	want := map[string]string{"PATH": DefaultPath, "HOME": "/tmp", "FOO": "bar", "TZ": "Europe/Paris", "PYTHONHASHSEED": "0", "MPLCONFIGDIR": "/tmp/mpl"}
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := cut(kv)
		got[k] = v
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q; want %q", k, got[k], v)
		}
	}
}

func cut(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

func TestSetExitCode(t *testing.T) {
	tests := []struct {
		code     int
		wantExit int
		wantSig  string
	}{
		{0, 0, ""}, {1, 1, ""}, {128, 128, ""},
		{137, -1, "killed"}, {139, -1, "segmentation fault"}, {152, -1, "CPU time limit exceeded"}, {255, 255, ""},
	}
	for _, tt := range tests {
		var r Result
		setExitCode(&r, tt.code)
		if r.ExitCode != tt.wantExit || r.Signal != tt.wantSig {
			t.Errorf("setExitCode(%d) = %d, %q; want %d, %q", tt.code, r.ExitCode, r.Signal, tt.wantExit, tt.wantSig)
		}
	}
}

func TestCheckSpec_RejectsBadPaths(t *testing.T) {
	env := &Environment{Name: "x"}
	for _, p := range []string{"", "/abs", "../up", "a/../b", "a//b", ".", ".."} {
		if err := checkSpec(Spec{Environment: env, Files: []File{{Path: p}}}); err == nil {
			t.Errorf("checkSpec(file %q) = nil; want an error", p)
		}
	}
	if err := checkSpec(Spec{Environment: env, Files: []File{{Path: "main.py"}, {Path: "pkg/mod.py"}}}); err != nil {
		t.Errorf("checkSpec(good files) = %v", err)
	}
	if err := checkSpec(Spec{Environment: env, Files: []File{{Path: "a"}, {Path: "a"}}}); err == nil {
		t.Errorf("checkSpec(duplicate) = nil; want an error")
	}
}

func TestOutputsReader(t *testing.T) {
	type file struct {
		name string
		size int
	}
	tests := []struct {
		name             string
		perFile, total   int64
		files            int
		in               []file
		want             map[string]int // name → bytes kept
		wantDropped      int64
		wantDroppedFiles int
	}{
		{"AllFit", 10, 100, 5, []file{{"a", 3}, {"b", 10}, {"c", 0}},
			map[string]int{"a": 3, "b": 10, "c": 0}, 0, 0},
		{"PerFileCut", 4, 100, 5, []file{{"a", 10}, {"b", 3}},
			map[string]int{"a": 4, "b": 3}, 6, 0},
		{"TotalCutsThenDrops", 10, 12, 5, []file{{"a", 8}, {"b", 8}, {"c", 5}, {"d", 0}},
			map[string]int{"a": 8, "b": 4, "d": 0}, 4 + 5, 1},
		{"FileCount", 10, 100, 2, []file{{"a", 1}, {"b", 1}, {"c", 7}, {"d", 1}},
			map[string]int{"a": 1, "b": 1}, 8, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOutputsReader(Limits{StreamCap: tt.perFile, OutSize: tt.total, OutFiles: tt.files})
			for _, f := range tt.in {
				o.add(f.name, int64(f.size), strings.NewReader(strings.Repeat("x", f.size)))
			}
			var res Result
			o.apply(&res)
			got := map[string]int{}
			for k, v := range res.Outputs {
				got[k] = len(v)
			}
			if !maps.Equal(got, tt.want) || res.OutputsDropped != tt.wantDropped || res.OutputsDroppedFiles != tt.wantDroppedFiles {
				t.Errorf("kept %v, dropped %d bytes, %d files; want %v, %d, %d", got, res.OutputsDropped, res.OutputsDroppedFiles, tt.want, tt.wantDropped, tt.wantDroppedFiles)
			}
		})
	}
}
