package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultArgv is the command run when Spec.Argv is empty: no user site
// directory (-s), no bytecode (-B), unbuffered output (-u, so output printed
// before a kill survives, P14). Not -I: isolated mode makes Python ignore
// every PYTHON* variable, including the fixed PYTHONHASHSEED=0 and
// PYTHONUNBUFFERED=1 of docs/sandbox.md §4.2; the environment is ours anyway
// (cleared, fixed), and /job, read-only, stays on sys.path so a job's
// helper modules import.
var DefaultArgv = []string{"python3", "-s", "-B", "-u", JobDir + "/main.py"}

// DefaultPath is PATH inside every sandbox.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin"

// DefaultEnv returns the fixed environment of every run as sorted KEY=VALUE
// strings (docs/sandbox.md §4.2 "environment"; private HOME, caches and
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
	if m := spec.Limits.Memory; m > 0 && m < MinMemory {
		return fmt.Errorf("%w: memory limit %d bytes is below the minimum of %d bytes (16 MiB) a Python run needs to start",
			ErrInvalidLimits, m, MinMemory)
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
// (docs/sandbox.md §4.2).
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

// ownerTag identifies this process across pid reuse: "PID-STARTTICKS".
func ownerTag() string {
	ownerOnce()
	return owner
}

var owner string

var ownerOnce = sync.OnceFunc(func() {
	pid := os.Getpid()
	owner = fmt.Sprintf("%d-%d", pid, procStart(pid))
})

// ownerAlive reports whether the harness that created a resource tagged
// "PID-STARTTICKS[-...]" still runs. Unparsable names count as alive, so
// the sweep never touches what it does not understand.
func ownerAlive(tag string) bool {
	parts := strings.SplitN(tag, "-", 3)
	if len(parts) < 2 {
		return true
	}
	pid, err1 := strconv.Atoi(parts[0])
	start, err2 := strconv.ParseUint(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return true
	}
	return procStart(pid) == start
}

// procStart returns the start time of pid in clock ticks since boot
// (/proc/PID/stat field 22), 0 if there is no such process.
func procStart(pid int) uint64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is field 3 (state); field 22 is f[19].
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// linuxSignals names Linux signals 1..31 as Go's syscall package does on
// Linux; the program always runs on Linux, whatever the harness's OS.
var linuxSignals = [...]string{
	1: "hangup", 2: "interrupt", 3: "quit", 4: "illegal instruction",
	5: "trace/breakpoint trap", 6: "aborted", 7: "bus error",
	8: "floating point exception", 9: "killed", 10: "user defined signal 1",
	11: "segmentation fault", 12: "user defined signal 2", 13: "broken pipe",
	14: "alarm clock", 15: "terminated", 16: "stack fault", 17: "child exited",
	18: "continued", 19: "stopped (signal)", 20: "stopped", 21: "stopped (tty input)",
	22: "stopped (tty output)", 23: "urgent I/O condition", 24: "CPU time limit exceeded",
	25: "file size limit exceeded", 26: "virtual timer expired", 27: "profiling timer expired",
	28: "window changed", 29: "I/O possible", 30: "power failure", 31: "bad system call",
}

// Names of the signals limitHitOf looks for.
var (
	sigXCPU = signalName(24)
	sigXFSZ = signalName(25)
)

func signalName(n int) string {
	if n > 0 && n < len(linuxSignals) {
		return linuxSignals[n]
	}
	return "signal " + strconv.Itoa(n)
}

// setExitCode records an init's exit code. Both bwrap's init and
// docker-init report a program killed by signal n as 128+n, so codes
// 129..192 are recorded as ExitCode -1 plus the signal's name (a program
// calling sys.exit(137) is indistinguishable from one SIGKILLed).
func setExitCode(res *Result, code int) {
	if code > 128 && code <= 128+64 {
		res.ExitCode, res.Signal = -1, signalName(code-128)
		return
	}
	res.ExitCode = code
}

// limitHitOf names the first limit that ended or constrained the run, in
// the verdict order of docs/sandbox.md §4.1.
func limitHitOf(r Result) string {
	switch {
	case r.TimedOut:
		return "wall"
	case r.OOMKilled:
		return "memory"
	case r.OutputLimitHit:
		return "output"
	case r.PIDLimitHit:
		return "pids"
	case r.Signal == sigXCPU:
		return "cpu"
	case r.Signal == sigXFSZ:
		return "fsize"
	}
	return ""
}
