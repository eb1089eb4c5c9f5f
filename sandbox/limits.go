package sandbox

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// DefaultArgv is the command run when Spec.Argv is empty: isolated mode,
// no bytecode (sandbox-spec §4.2 "environment").
var DefaultArgv = []string{"python3", "-I", "-B", JobDir + "/main.py"}

// DefaultPath is PATH inside every sandbox.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// DefaultEnv returns the fixed environment of every run as sorted KEY=VALUE
// strings (sandbox-spec §4.2 "environment"; private HOME, caches and
// MPLCONFIGDIR in the run's own tmpfs, P12).
func DefaultEnv() []string {
	return envList(fixedEnv())
}

func fixedEnv() map[string]string {
	return map[string]string{
		"PATH":                    DefaultPath,
		"HOME":                    "/tmp",
		"LANG":                    "C.UTF-8",
		"TZ":                      "UTC",
		"PYTHONHASHSEED":          "0",
		"PYTHONUNBUFFERED":        "1",
		"PYTHONDONTWRITEBYTECODE": "1",
		"OMP_NUM_THREADS":         "1",
		"OPENBLAS_NUM_THREADS":    "1",
		"MKL_NUM_THREADS":         "1",
		"MPLBACKEND":              "Agg",
		"MPLCONFIGDIR":            "/tmp/mpl",
		"XDG_CACHE_HOME":          "/tmp/.cache",
	}
}

// runEnv returns the fixed environment plus spec.Env, which may add
// variables and override all but PATH and HOME.
func runEnv(spec Spec) []string {
	env := fixedEnv()
	for k, v := range spec.Env {
		if k == "PATH" || k == "HOME" || k == "" || strings.ContainsAny(k, "=\x00") {
			continue
		}
		env[k] = v
	}
	return envList(env)
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func runArgv(spec Spec) []string {
	if len(spec.Argv) == 0 {
		return append([]string(nil), DefaultArgv...)
	}
	return append([]string(nil), spec.Argv...)
}

// checkSpec validates what every backend needs before starting anything.
func checkSpec(spec Spec) error {
	if spec.Environment == nil {
		return fmt.Errorf("sandbox: spec has no environment")
	}
	seen := make(map[string]bool, len(spec.Files))
	for _, f := range spec.Files {
		if f.Path == "" || path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || f.Path == "." ||
			strings.HasPrefix(f.Path, "../") || f.Path == ".." {
			return fmt.Errorf("sandbox: file path %q: must be relative to %s, clean, without ..", f.Path, JobDir)
		}
		if seen[f.Path] {
			return fmt.Errorf("sandbox: file path %q given twice", f.Path)
		}
		seen[f.Path] = true
	}
	return nil
}

func fileMode(f File) uint32 {
	if f.Mode == 0 {
		return 0o444
	}
	return f.Mode & 0o555 // never writable, never setuid
}

// An rlimit is one resource limit to apply, named as Docker's Ulimit names
// it ("nofile", "fsize", "core", "cpu", "stack").
type rlimit struct {
	Name       string
	Soft, Hard uint64
}

// rlimitsFor returns the rlimits of l (defaults applied): NOFILE, FSIZE,
// CORE 0, CPU soft = CPUTime and hard one second more, STACK when set
// (sandbox-spec §4.2).
func rlimitsFor(l Limits) []rlimit {
	cpu := uint64((l.CPUTime + time.Second - 1) / time.Second)
	rl := []rlimit{
		{"nofile", uint64(l.NoFile), uint64(l.NoFile)},
		{"fsize", uint64(l.FileSize), uint64(l.FileSize)},
		{"core", 0, 0},
		{"cpu", cpu, cpu + 1},
	}
	if l.Stack > 0 {
		rl = append(rl, rlimit{"stack", uint64(l.Stack), uint64(l.Stack)})
	}
	return rl
}

// clampRlimits lowers every limit to the hard limit reported by hardOf
// (P11: never raise above the inherited hard limit, never fail the run) and
// writes the effective values back into l.
func clampRlimits(l *Limits, rls []rlimit, hardOf func(name string) (uint64, bool)) []rlimit {
	out := make([]rlimit, 0, len(rls))
	for _, r := range rls {
		if h, ok := hardOf(r.Name); ok {
			if r.Hard > h {
				r.Hard = h
			}
			if r.Soft > r.Hard {
				r.Soft = r.Hard
			}
		}
		switch r.Name {
		case "nofile":
			l.NoFile = int(r.Soft)
		case "fsize":
			l.FileSize = int64(r.Soft)
		case "cpu":
			l.CPUTime = time.Duration(r.Soft) * time.Second
		case "stack":
			l.Stack = int64(r.Soft)
		}
		out = append(out, r)
	}
	return out
}
