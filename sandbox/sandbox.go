package sandbox

import (
	"context"
	"errors"
	"time"
)

// Sentinel errors of the sandbox package, compared with errors.Is.
var (
	// ErrUnavailable reports that a backend cannot run on this host (no bwrap,
	// no Docker engine, no user namespaces, not Linux).
	ErrUnavailable = errors.New("sandbox: backend unavailable")
	// ErrNoImage reports an environment that has not been imported into Docker
	// (run `novelapi env docker NAME`).
	ErrNoImage = errors.New("sandbox: environment has no Docker image")
	// ErrInvalidLimits reports a Spec whose Limits no run could start under
	// (a memory limit below MinMemory); Run refuses it before starting anything.
	ErrInvalidLimits = errors.New("sandbox: invalid limits")
)

// A Runner executes one Spec in isolation and reports what happened.
//
// Run returns a non-nil error only when the sandbox itself failed (backend
// unavailable, setup error); the Result then has InfraError set as well. A
// program that crashed, timed out or hit a limit is a successful Run whose
// Result records the facts. Implementations must be safe for concurrent use and
// must leave no process, container, cgroup or temporary directory behind,
// whatever the program did. The wall deadline starts when the sandbox starts,
// not when Run is called (docs/sandbox.md P3).
type Runner interface {
	Run(ctx context.Context, spec Spec) (Result, error)
	// Name returns the backend name recorded in Result.Backend ("bwrap", "docker").
	Name() string
}

// A File is one file placed in the read-only work directory /job of a run.
type File struct {
	Path string // relative to /job, slash-separated, no ".."
	Data []byte
	Mode uint32 // permission bits; 0 means 0444
}

// A Spec describes one sandbox run. Runners never modify it.
type Spec struct {
	// Environment is the root filesystem (bwrap) or image (docker) to run in.
	Environment *Environment
	// Files are written to /job, which is read-only for the program.
	Files []File
	// Argv is the command; argv[0] is looked up on the sandbox's PATH.
	// Empty means DefaultArgv: ["python3", "-s", "-B", "-u", "/job/main.py"].
	Argv []string
	// Env adds variables to the fixed environment (DefaultEnv); it cannot
	// override PATH or HOME.
	Env map[string]string
	// Stdin is fed to the program; nil means /dev/null.
	Stdin []byte
	// Limits bound the run; zero fields select the defaults.
	Limits Limits
}

// Limits bounds one sandbox run. A zero field selects the default from the
// sandbox spec's limits table (docs/sandbox.md §4.2); negative fields count as
// zero. Memory below MinMemory is refused (ErrInvalidLimits).
//
// The JSON names are snake_case with the unit in the name, as Result's
// (durations in nanoseconds, sizes in bytes).
type Limits struct {
	// Wall is the wall clock from sandbox start; 0 means DefaultWall.
	Wall time.Duration `json:"wall_ns"`
	// Memory is the bytes of RSS (cgroup memory limit, swap 0) of the whole
	// run, including on bwrap the sandbox's own start-up; 0 means
	// DefaultMemory. Below MinMemory (16 MiB) Run refuses the spec with
	// ErrInvalidLimits before starting anything: the docs/sandbox.md §4.2 memory
	// row bounds a Python program, and a smaller limit leaves no room for the
	// sandbox plus an interpreter (bwrap is killed in setup, Docker refuses
	// under 6 MB, python3 is killed at start-up).
	Memory   int64   `json:"memory_bytes"`
	PIDs     int     `json:"pids"`            // processes + threads; 0 means DefaultPIDs
	CPUs     float64 `json:"cpus"`            // CPU share; 0 means 1 CPU
	NoFile   int     `json:"nofile"`          // RLIMIT_NOFILE; 0 means DefaultNoFile
	FileSize int64   `json:"file_size_bytes"` // RLIMIT_FSIZE bytes; 0 means DefaultFileSize
	TmpSize  int64   `json:"tmp_size_bytes"`  // tmpfs /tmp bytes; 0 means DefaultTmpSize
	// OutSize is the bytes OutDir holds (a sized tmpfs: writes past it
	// fail with ENOSPC) and the most bytes of it returned in
	// Result.Outputs; 0 means DefaultOutSize.
	OutSize int64 `json:"out_size_bytes"`
	// OutFiles is the number of files and directories OutDir holds
	// (creating one more fails with ENOSPC) and the most files returned
	// in Result.Outputs; 0 means DefaultOutFiles.
	OutFiles   int   `json:"out_files"`
	StreamCap  int64 `json:"stream_cap_bytes"`  // bytes kept of stdout and of stderr each; 0 means DefaultStreamCap
	OutputKill int64 `json:"output_kill_bytes"` // total output budget before kill (OUTPUT_LIMIT); 0 means DefaultOutputBudget
	// CPUTime is the RLIMIT_CPU soft limit per process (the hard limit is one
	// second more); 0 means Wall + 1s (docs/sandbox.md §4.2).
	CPUTime time.Duration `json:"cpu_time_ns"`
	// Stack is RLIMIT_STACK in bytes; 0 keeps the inherited limit (and is
	// left out of the JSON). Like every rlimit it is clamped to the
	// harness's hard limit (P11).
	Stack int64 `json:"stack_bytes,omitempty"`
}

// Defaults from docs/sandbox.md §4.2.
const (
	DefaultWall         = 10 * time.Second
	DefaultMemory       = 1 << 30
	DefaultPIDs         = 64
	DefaultNoFile       = 256
	DefaultFileSize     = 16 << 20
	DefaultTmpSize      = 64 << 20
	DefaultStreamCap    = 1 << 20
	DefaultOutputBudget = 64 << 20
	// DefaultOutSize is the default capacity of OutDir, the default file
	// size limit: room for the structured records a run leaves there.
	DefaultOutSize = 16 << 20
	// DefaultOutFiles is the default number of files and directories
	// OutDir holds.
	DefaultOutFiles = 256
	// MinMemory is the smallest Limits.Memory a run accepts: 16 MiB, room
	// for the sandbox's start-up and a bare python3 with a margin, and above
	// Docker's 6 MB minimum (docs/sandbox.md §5).
	MinMemory = 16 << 20
	// OutDir is the writable directory whose files are returned in
	// Result.Outputs: the structured-record channel, separate from stdout.
	OutDir = "/out"
	// JobDir is the read-only directory holding Spec.Files.
	JobDir = "/job"
)

// WithDefaults returns l with every zero field replaced by its default.
func (l Limits) WithDefaults() Limits {
	if l.Wall <= 0 {
		l.Wall = DefaultWall
	}
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	if l.PIDs <= 0 {
		l.PIDs = DefaultPIDs
	}
	if l.CPUs <= 0 {
		l.CPUs = 1
	}
	if l.NoFile <= 0 {
		l.NoFile = DefaultNoFile
	}
	if l.FileSize <= 0 {
		l.FileSize = DefaultFileSize
	}
	if l.TmpSize <= 0 {
		l.TmpSize = DefaultTmpSize
	}
	if l.StreamCap <= 0 {
		l.StreamCap = DefaultStreamCap
	}
	if l.OutSize <= 0 {
		l.OutSize = DefaultOutSize
	}
	if l.OutFiles <= 0 {
		l.OutFiles = DefaultOutFiles
	}
	if l.OutputKill <= 0 {
		l.OutputKill = DefaultOutputBudget
	}
	if l.CPUTime <= 0 {
		l.CPUTime = l.Wall + time.Second
	}
	return l
}

// A Result records the facts of one run; verdicts are decided by callers
// (evalharness), never here.
type Result struct {
	ExitCode       int    `json:"exit_code"`        // -1 when killed by a signal or never started
	Signal         string `json:"signal,omitempty"` // e.g. "killed", "segmentation fault"
	TimedOut       bool   `json:"timed_out"`        // killed at the wall deadline
	OOMKilled      bool   `json:"oom_killed"`       // the memory limit was hit
	PIDLimitHit    bool   `json:"pid_limit_hit"`    // the pids limit refused a fork
	OutputLimitHit bool   `json:"output_limit_hit"` // total output budget exceeded; the run was killed
	// LimitHit names the first limit that ended or constrained the run:
	// "", "wall", "memory", "pids", "output", "cpu", "fsize".
	LimitHit string        `json:"limit_hit,omitempty"`
	Wall     time.Duration `json:"wall_ns"`
	CPU      time.Duration `json:"cpu_ns"`         // from the cgroup where available
	PeakMem  int64         `json:"peak_mem_bytes"` // 0 when unknown
	Stdout   []byte        `json:"stdout"`         // at most Limits.StreamCap bytes
	Stderr   []byte        `json:"stderr"`         // at most Limits.StreamCap bytes
	// StdoutDropped and StderrDropped count the bytes beyond the cap.
	StdoutDropped int64 `json:"stdout_dropped"`
	StderrDropped int64 `json:"stderr_dropped"`
	// Outputs holds the regular files the program left in OutDir (path
	// relative to OutDir → contents), read in path order with three caps:
	// each file at Limits.StreamCap bytes, all of them together at
	// Limits.OutSize bytes, and at most Limits.OutFiles files.
	Outputs map[string][]byte `json:"outputs,omitempty"`
	// OutputsDropped counts the bytes of OutDir's regular files that
	// Outputs does not hold (cut tails and files left out);
	// OutputsDroppedFiles counts the files left out entirely.
	OutputsDropped      int64 `json:"outputs_dropped"`
	OutputsDroppedFiles int   `json:"outputs_dropped_files"`
	// OutFull reports that OutDir had no room left for another byte or
	// another file when the run ended: the program's writes there may
	// have failed with ENOSPC. It is false where the backend cannot tell
	// (a Docker engine on another host, see Docker).
	OutFull    bool   `json:"out_full,omitempty"`
	Backend    string `json:"backend"`
	Limits     Limits `json:"limits"` // effective limits after defaults and clamping
	InfraError string `json:"infra_error,omitempty"`
}
