package sandboxtest

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/novelapi/novelapi/sandbox"
)

// Cases holds the adversarial programs of the conformance suite, one per
// file, each citing the property of docs/sandbox.md §3 it exercises.
//
//go:embed cases/*.py
var Cases embed.FS

// Script returns the embedded case program name (e.g. "fork_bomb.py").
func Script(t testing.TB, name string) []byte {
	t.Helper()
	data, err := Cases.ReadFile("cases/" + name)
	if err != nil {
		t.Fatalf("sandboxtest: no case %s: %v", name, err)
	}
	return data
}

// A confCase is one program with its limits and the facts every backend
// must report for it.
type confCase struct {
	name   string
	script string
	limits sandbox.Limits
	env    map[string]string
	stdin  []byte
	check  func(t *testing.T, r sandbox.Result)
}

// Conformance runs the adversarial suite on r over env: every case must end
// with the same verdict facts on every backend, Run must return within the
// wall limit plus a grace period, and after each case nothing of the run may
// be left (processes, cgroups, run directories, containers). Cases run one
// after another, so the leftover checks see only this suite's runs.
//
// The suite takes well under a minute per backend: timeouts use 2-3 s walls.
func Conformance(t *testing.T, r sandbox.Runner, env *sandbox.Environment) {
	// A port the harness listens on at the host's loopback: the sandbox must
	// not reach it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)

	hostFile := filepath.Join(t.TempDir(), "host-secret.txt")
	if err := os.WriteFile(hostFile, []byte("host secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostOnly := hostOnlyEntry(env.Root)

	cases := []confCase{
		{name: "NormalExit", script: "normal.py", check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if got := string(r.Stdout); got != "hello from /job 65534\n" {
				t.Errorf("stdout = %q; want %q", got, "hello from /job 65534\n")
			}
			var rec map[string]string
			if err := json.Unmarshal(r.Outputs["result.json"], &rec); err != nil {
				t.Fatalf("Outputs[result.json] = %q: %v (outputs %v)", r.Outputs["result.json"], err, keys(r.Outputs))
			}
			if rec["home"] != "/tmp" || rec["tz"] != "UTC" || rec["hashseed"] != "0" || rec["hash_randomization"] != "0" || rec["unbuffered"] != "True" {
				t.Errorf("environment inside = %v; want HOME=/tmp TZ=UTC PYTHONHASHSEED=0 honoured, unbuffered", rec)
			}
		}},
		{name: "Exception", script: "exception.py", check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 1)
			if !bytes.Contains(r.Stderr, []byte("Traceback")) || !bytes.Contains(r.Stderr, []byte("ValueError: boom from candidate")) {
				t.Errorf("stderr = %q; want a traceback with the ValueError", r.Stderr)
			}
		}},
		{name: "Stdin", script: "stdin_echo.py", stdin: []byte("abc\n"), check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if string(r.Stdout) != "got abc\n" {
				t.Errorf("stdout = %q; want %q", r.Stdout, "got abc\n")
			}
		}},
		{name: "TimeoutPurePython", script: "busy_loop.py", limits: sandbox.Limits{Wall: 2 * time.Second}, check: func(t *testing.T, r sandbox.Result) {
			wantTimeout(t, r)
			if !bytes.Contains(r.Stdout, []byte("progress")) {
				t.Errorf("stdout = %q; want the progress line printed before the loop (P14)", r.Stdout)
			}
		}},
		{name: "TimeoutInsideC", script: "regex_backtrack.py", limits: sandbox.Limits{Wall: 2 * time.Second}, check: func(t *testing.T, r sandbox.Result) {
			wantTimeout(t, r)
		}},
		{name: "MemoryHog", script: "memory_hog.py", limits: sandbox.Limits{Wall: 20 * time.Second, Memory: 128 << 20}, check: func(t *testing.T, r sandbox.Result) {
			if !r.OOMKilled || r.LimitHit != "memory" {
				t.Errorf("OOMKilled = %v, LimitHit = %q; want true, memory (%s)", r.OOMKilled, r.LimitHit, describe(r))
			}
			if r.ExitCode == 0 {
				t.Errorf("exit code 0 after OOM (%s)", describe(r))
			}
		}},
		// A low pids limit keeps the case quick on a loaded host (forks of a
		// Python process are slow); the default of 64 behaves the same.
		{name: "ForkBomb", script: "fork_bomb.py", limits: sandbox.Limits{Wall: 3 * time.Second, PIDs: 8}, check: func(t *testing.T, r sandbox.Result) {
			if !r.PIDLimitHit {
				t.Errorf("PIDLimitHit = false; want true (%s)", describe(r))
			}
		}},
		// The limit is above what a container runtime's start-up counts
		// against it (runc init: 5-8 tasks measured), which a backend cannot
		// tell from the program's own tasks once the refusal's record is gone.
		{name: "PIDLimitHit", script: "fork_until_refused.py", limits: sandbox.Limits{Wall: 20 * time.Second, PIDs: 16}, check: func(t *testing.T, r sandbox.Result) {
			if !r.PIDLimitHit || r.LimitHit != "pids" || r.TimedOut || r.ExitCode != 0 {
				t.Errorf("PIDLimitHit = %v, LimitHit = %q, TimedOut = %v, exit %d; want true, pids, false, 0 (%s)", r.PIDLimitHit, r.LimitHit, r.TimedOut, r.ExitCode, describe(r))
			}
		}},
		// A program far below a low pids limit did not hit it, whatever the
		// sandbox's own start-up counted against it.
		{name: "PIDLimitUnused", script: "stdin_echo.py", stdin: []byte("abc\n"), limits: sandbox.Limits{PIDs: 8}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if r.PIDLimitHit {
				t.Errorf("PIDLimitHit = true for a one-process program under a limit of 8 (%s)", describe(r))
			}
		}},
		// Result.CPU and PeakMem are measured by every backend from outside
		// the sandbox (the program could print anything).
		{name: "CPUTime", script: "cpu_burn.py", check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if r.CPU < 300*time.Millisecond {
				t.Errorf("CPU = %v; want at least 300ms for a program that burns 0.5s of CPU (%s)", r.CPU, describe(r))
			}
			// One CPU: the program cannot use more CPU time than wall time
			// (plus the sandbox's own set-up, which may precede the wall clock).
			if limit := r.Wall + time.Second; r.CPU > limit {
				t.Errorf("CPU = %v; want at most wall + 1s = %v (%s)", r.CPU, limit, describe(r))
			}
		}},
		{name: "PeakMemory", script: "memory_peak.py", check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if r.PeakMem < 150<<20 || r.PeakMem > r.Limits.Memory {
				t.Errorf("PeakMem = %d MiB; want between 150 MiB and the limit %d MiB for a program holding 200 MiB (%s)", r.PeakMem>>20, r.Limits.Memory>>20, describe(r))
			}
		}},
		{name: "StdoutFlood", script: "stdout_flood.py", limits: sandbox.Limits{Wall: 20 * time.Second, OutputKill: 16 << 20}, check: func(t *testing.T, r sandbox.Result) {
			if !r.OutputLimitHit || r.LimitHit != "output" || r.TimedOut {
				t.Errorf("OutputLimitHit = %v, LimitHit = %q, TimedOut = %v; want true, output, false (%s)", r.OutputLimitHit, r.LimitHit, r.TimedOut, describe(r))
			}
			if len(r.Stdout) != sandbox.DefaultStreamCap || r.StdoutDropped <= 0 {
				t.Errorf("kept %d stdout bytes, dropped %d; want exactly %d kept and some dropped", len(r.Stdout), r.StdoutDropped, sandbox.DefaultStreamCap)
			}
		}},
		{name: "StdoutExactCap", script: "stdout_exact.py", limits: sandbox.Limits{StreamCap: 1024}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if len(r.Stdout) != 1024 || r.StdoutDropped != 5001-1024 || r.OutputLimitHit {
				t.Errorf("kept %d, dropped %d, output limit %v; want 1024, %d, false", len(r.Stdout), r.StdoutDropped, r.OutputLimitHit, 5001-1024)
			}
		}},
		{name: "OutputRace", script: "output_race.py", limits: sandbox.Limits{OutputKill: 500_000}, check: func(t *testing.T, r sandbox.Result) {
			if !r.OutputLimitHit || r.LimitHit != "output" {
				t.Errorf("OutputLimitHit = %v, LimitHit = %q; want true, output whatever wins the race (P15) (%s)", r.OutputLimitHit, r.LimitHit, describe(r))
			}
		}},
		// The descendants never end: any return before the deadline shows
		// Run did not wait for them (the wall is long so a loaded host
		// cannot turn the case into a timeout).
		{name: "DetachedDescendants", script: "detached.py", limits: sandbox.Limits{Wall: 30 * time.Second}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if string(r.Stdout) != "done\n" {
				t.Errorf("stdout = %q; want %q", r.Stdout, "done\n")
			}
			if r.TimedOut {
				t.Errorf("Run waited for the detached descendants until the deadline (%v); want a return when the main program exits (P16, P17)", r.Wall)
			}
		}},
		{name: "Network", script: "network.py", env: map[string]string{"HOST_PORT": port}, limits: sandbox.Limits{Wall: 15 * time.Second}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			want := "outside blocked\noutside-dns blocked\nhost-loopback blocked\n"
			if string(r.Stdout) != want {
				t.Errorf("stdout = %q; want %q", r.Stdout, want)
			}
			if n := accepted.Load(); n != 0 {
				t.Errorf("the host listener accepted %d connections from the sandbox", n)
			}
		}},
		{name: "WriteOutsideTmp", script: "write_outside.py", check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			want := "/x denied\n/usr/x denied\n/etc/x denied\n/job/x denied\n/job/main.py denied\n/var/x denied\n/root/x denied\n/tmp/ok written\n/out/ok written\n"
			if string(r.Stdout) != want {
				t.Errorf("stdout = %q; want %q", r.Stdout, want)
			}
			if string(r.Outputs["ok"]) != "x" {
				t.Errorf("Outputs = %v; want ok=x", keys(r.Outputs))
			}
		}},
		{name: "ReadHostFiles", script: "read_host.py", env: map[string]string{"HOST_FILE": hostFile}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if !bytes.HasPrefix(r.Stdout, []byte("invisible\n")) {
				t.Errorf("stdout = %q; want the host file invisible", r.Stdout)
			}
			if hostOnly != "" && bytes.Contains(r.Stdout, []byte("'"+hostOnly+"'")) {
				t.Errorf("the sandbox's / lists the host-only entry %q: %s", hostOnly, r.Stdout)
			}
		}},
		{name: "SignalParent", script: "signal_parent.py", check: func(t *testing.T, r sandbox.Result) {
			// Harmless: the harness (this test) is still running, Run returned,
			// and the leftover check below passes. Inside, PID 1 ignores the
			// SIGKILL and kill(-1) spares the caller.
			wantExit(t, r, 0)
			if !bytes.Contains(r.Stdout, []byte("still here")) {
				t.Errorf("stdout = %q; want %q", r.Stdout, "still here")
			}
		}},
		{name: "ForgedSuccess", script: "forged.py", check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if !bytes.Contains(r.Stdout, []byte("PASSED test_all")) {
				t.Errorf("stdout = %q; want the forged line kept as plain output", r.Stdout)
			}
			if len(r.Outputs) != 0 {
				t.Errorf("Outputs = %v; want none: records come only from /out", keys(r.Outputs))
			}
		}},
		{name: "UnreapedZombies", script: "zombies.py", limits: sandbox.Limits{PIDs: 300, Wall: 30 * time.Second}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if string(r.Stdout) != "parent done\n" {
				t.Errorf("stdout = %q; want %q", r.Stdout, "parent done\n")
			}
		}},
		// /out is bounded in bytes and in files (a sized tmpfs or
		// equivalent): the program's writes are refused past the limits,
		// and what the harness reads back, and so holds in memory, stays
		// within them.
		{name: "OutBytesFlood", script: "out_bytes_flood.py", limits: sandbox.Limits{Wall: 20 * time.Second, OutSize: 4 << 20, OutFiles: 64}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			if !bytes.Contains(r.Stdout, []byte("stopped by ENOSPC")) {
				t.Errorf("stdout = %q; want the writes refused with ENOSPC past the 4 MiB limit", r.Stdout)
			}
			kept, files := outputsSize(r)
			if kept+r.OutputsDropped > 4<<20 || files+r.OutputsDroppedFiles > 64 {
				t.Errorf("/out held %d bytes in %d files (%d bytes, %d files returned); want at most 4 MiB, 64 files", kept+r.OutputsDropped, files+r.OutputsDroppedFiles, kept, files)
			}
			if r.OutputsDropped == 0 || !r.OutFull {
				t.Errorf("OutputsDropped = %d, OutFull = %v; want the bytes beyond the stream cap counted and /out full", r.OutputsDropped, r.OutFull)
			}
		}},
		{name: "OutFilesFlood", script: "out_files_flood.py", limits: sandbox.Limits{Wall: 20 * time.Second, OutFiles: 64}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			var n int
			var stop string
			if _, err := fmt.Sscanf(string(r.Stdout), "created %d files; stopped by %s", &n, &stop); err != nil || stop != "ENOSPC" || n > 64 {
				t.Errorf("stdout = %q; want at most 64 files created, then ENOSPC", r.Stdout)
			}
			kept, files := outputsSize(r)
			if files != n || kept != int64(n) || r.OutputsDropped != 0 || r.OutputsDroppedFiles != 0 || !r.OutFull {
				t.Errorf("returned %d files, %d bytes, dropped %d bytes, %d files, OutFull %v; want all %d one-byte files, nothing dropped, /out full", files, kept, r.OutputsDropped, r.OutputsDroppedFiles, r.OutFull, n)
			}
		}},
		{name: "OutFileCut", script: "out_cut.py", limits: sandbox.Limits{StreamCap: 1024}, check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			for _, name := range []string{"a", "b", "c"} {
				if got := r.Outputs[name]; string(got) != strings.Repeat(name, 1024) {
					t.Errorf("Outputs[%s] = %d bytes; want the first 1024", name, len(got))
				}
			}
			if r.OutputsDropped != 3*(5000-1024) || r.OutputsDroppedFiles != 0 || r.OutFull {
				t.Errorf("OutputsDropped = %d, OutputsDroppedFiles = %d, OutFull = %v; want %d, 0, false", r.OutputsDropped, r.OutputsDroppedFiles, r.OutFull, 3*(5000-1024))
			}
		}},
		{name: "NumpyUnderMemoryLimit", script: "numpy_import.py", check: func(t *testing.T, r sandbox.Result) {
			wantExit(t, r, 0)
			want := env.Manifest.Versions["numpy"]
			if !bytes.HasPrefix(r.Stdout, []byte(want)) || !bytes.Contains(r.Stdout, []byte("499999500000.0")) {
				t.Errorf("stdout = %q; want numpy %s and the sum 499999500000.0", r.Stdout, want)
			}
		}},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := sandbox.PythonSpec(env, Script(t, tc.script))
			spec.Limits, spec.Env, spec.Stdin = tc.limits, tc.env, tc.stdin
			wall := spec.Limits.WithDefaults().Wall
			start := time.Now()
			res, err := r.Run(t.Context(), spec)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("Run: %v (infra error %q)", err, res.InfraError)
			}
			// Invariant of every entry in docs/sandbox.md §3: Run returns within
			// the wall limit plus the kill grace (and, for Docker, container
			// set-up and removal).
			if limit := wall + 8*time.Second; took > limit {
				t.Errorf("Run took %v; want at most %v", took, limit)
			}
			if res.Backend != r.Name() {
				t.Errorf("Backend = %q; want %q", res.Backend, r.Name())
			}
			t.Logf("%s", describe(res))
			// Every run that started has used some CPU and memory.
			if res.CPU <= 0 || res.PeakMem <= 0 {
				t.Errorf("CPU = %v, PeakMem = %d; want both measured (> 0)", res.CPU, res.PeakMem)
			}
			tc.check(t, res)
			AssertClean(t, r.Name())
		})
	}
}

// AssertClean fails t if anything of this process's runs is left on the
// host: processes in a run cgroup, run cgroups (bwrap's, and the Docker
// backend's per-run parents, which on v1 sit at the root of every
// hierarchy), run directories (bwrap), managed containers (docker), or the
// conformance suite's "sleep 613" marker process.
func AssertClean(t testing.TB, backend string) {
	t.Helper()
	me := strconv.Itoa(os.Getpid()) + "-"
	var left []string
	for _, parent := range []string{"/sys/fs/cgroup/pids/novelapi", "/sys/fs/cgroup/memory/novelapi",
		"/sys/fs/cgroup/freezer/novelapi", "/sys/fs/cgroup/novelapi"} {
		ents, _ := os.ReadDir(parent)
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), me) {
				left = append(left, "cgroup "+filepath.Join(parent, e.Name()))
			}
		}
	}
	if m, _ := filepath.Glob("/sys/fs/cgroup/*/novelapi-" + me + "*"); len(m) > 0 {
		left = append(left, fmt.Sprintf("cgroups %v", m))
	}
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "novelapi-run-"+me+"*")); len(m) > 0 {
		left = append(left, fmt.Sprintf("run dirs %v", m))
	}
	if mi, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		for line := range strings.Lines(string(mi)) {
			if strings.Contains(line, "/novelapi-run-"+me) {
				left = append(left, "mount "+strings.TrimSpace(line))
			}
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if cg, err := os.ReadFile(p + "/cgroup"); err == nil && (bytes.Contains(cg, []byte("/novelapi/"+me)) || bytes.Contains(cg, []byte("/novelapi-"+me))) {
			left = append(left, "process "+filepath.Base(p)+" in a run cgroup")
		}
		if cmd, err := os.ReadFile(p + "/cmdline"); err == nil && bytes.Equal(cmd, []byte("sleep\x00613\x00")) {
			left = append(left, "process "+filepath.Base(p)+": sleep 613")
		}
	}
	if backend == "docker" {
		left = append(left, dockerLeftovers(t, me)...)
	}
	if len(left) > 0 {
		t.Errorf("left behind after the run: %s", strings.Join(left, "; "))
	}
}

func dockerLeftovers(t testing.TB, me string) []string {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return []string{"docker client: " + err.Error()}
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", sandbox.LabelManaged+"=1"))})
	if err != nil {
		return []string{"list containers: " + err.Error()}
	}
	var left []string
	for _, c := range list {
		if strings.Contains(c.Labels[sandbox.LabelOwner], "/"+me) {
			left = append(left, "container "+c.ID[:12]+" ("+c.State+")")
		}
	}
	return left
}

// hostOnlyEntry returns a name in the host's / that root does not have
// ("" if none), to show the sandbox does not see the host's root.
func hostOnlyEntry(root string) string {
	ents, _ := os.ReadDir("/")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue // e.g. .dockerenv, which Docker also creates in containers
		}
		if _, err := os.Lstat(filepath.Join(root, e.Name())); err != nil {
			return e.Name()
		}
	}
	return ""
}

func wantExit(t *testing.T, r sandbox.Result, code int) {
	t.Helper()
	if r.ExitCode != code || r.TimedOut || r.LimitHit != "" {
		t.Errorf("exit %d, timed out %v, limit %q; want exit %d, no limit (%s)", r.ExitCode, r.TimedOut, r.LimitHit, code, describe(r))
	}
}

func wantTimeout(t *testing.T, r sandbox.Result) {
	t.Helper()
	if !r.TimedOut || r.LimitHit != "wall" || r.ExitCode == 0 {
		t.Errorf("timed out %v, limit %q, exit %d; want a wall-limit kill (%s)", r.TimedOut, r.LimitHit, r.ExitCode, describe(r))
	}
	if lim := r.Limits.Wall; r.Wall < lim || r.Wall > lim+2*time.Second {
		t.Errorf("wall %v; want between %v and %v (killed at the deadline)", r.Wall, lim, lim+2*time.Second)
	}
}

func describe(r sandbox.Result) string {
	return fmt.Sprintf("backend %s exit %d signal %q timed out %v oom %v pids %v output %v limit %q wall %v cpu %v peak %d stdout %q stderr %q infra %q",
		r.Backend, r.ExitCode, r.Signal, r.TimedOut, r.OOMKilled, r.PIDLimitHit, r.OutputLimitHit, r.LimitHit, r.Wall, r.CPU, r.PeakMem,
		trim(r.Stdout), trim(r.Stderr), r.InfraError)
}

func trim(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// outputsSize returns the bytes and the number of files in r.Outputs.
func outputsSize(r sandbox.Result) (int64, int) {
	var n int64
	for _, v := range r.Outputs {
		n += int64(len(v))
	}
	return n, len(r.Outputs)
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
