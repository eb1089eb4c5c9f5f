package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BwrapConfig configures the bubblewrap backend. The zero value works on a
// host with bwrap on PATH and writable cgroups.
type BwrapConfig struct {
	// Path is the bwrap binary; "" means "bwrap" looked up on PATH.
	Path string
	// CgroupRoot is where the cgroup hierarchy is mounted; "" means
	// /sys/fs/cgroup. v2 is detected by ROOT/cgroup.controllers; otherwise
	// the v1 controllers memory, pids (required), cpu, cpuacct and freezer
	// are used from ROOT/CTRL.
	CgroupRoot string
	// TempDir holds the per-run directories; "" means os.TempDir().
	TempDir string
	// Log receives warnings (sweeps, cleanup failures); nil means slog.Default().
	Log *slog.Logger
}

// Bwrap runs programs with bubblewrap over an environment's root
// filesystem (docs/sandbox.md §4.3): read-only root, private /proc, sized
// tmpfs /tmp, read-only /job, writable /out on a tmpfs that the harness
// mounts in the run directory (sized by Limits.OutSize and OutFiles, read
// back after the run, unmounted before Run returns), new user, pid, ipc, uts, net
// and cgroup namespaces (only loopback inside), cleared environment, all
// capabilities dropped, uid/gid 65534 inside, one cgroup per run for
// memory, pids and CPU, rlimits for open files, file size, core dumps and
// CPU time.
//
// Inside the user namespace uid 65534 maps to the uid running the harness,
// so files written to /out belong to that uid on the host.
//
// On cgroup v1 bwrap is started through /bin/sh, which first joins the
// run's cgroups: every process of the run, bwrap's own included, is born
// inside them, the sandbox's cgroup namespace is rooted at the run cgroup,
// and Result.CPU and PeakMem count bwrap's start-up too.
//
// A Bwrap is safe for concurrent use.
type Bwrap struct {
	path string
	sh   string // /bin/sh, which starts bwrap inside a v1 run cgroup; "" when missing
	cg   *cgroups
	tmp  string
	log  *slog.Logger
}

var _ Runner = (*Bwrap)(nil)

// Name returns "bwrap".
func (b *Bwrap) Name() string { return "bwrap" }

var (
	probeMu   sync.Mutex
	probeDone = map[string]error{}
)

// NewBwrap checks that bwrap runs here (one probe run per binary and
// process) and that per-run cgroups can be created, then sweeps cgroups and
// run directories left by harness processes that died mid-run (P19, P20).
// It returns an error wrapping ErrUnavailable when bwrap is missing, the
// probe fails, no cgroup hierarchy is writable or the harness cannot mount
// the tmpfs that bounds /out (it needs CAP_SYS_ADMIN: root).
func NewBwrap(cfg BwrapConfig) (*Bwrap, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	p := cfg.Path
	if p == "" {
		p = "bwrap"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		return nil, fmt.Errorf("%w: bwrap: %v (install bubblewrap: apt-get install bubblewrap)", ErrUnavailable, err)
	}
	if err := probeBwrap(path); err != nil {
		return nil, err
	}
	cg, err := openCgroups(cfg.CgroupRoot)
	if err != nil {
		return nil, fmt.Errorf("%w: bwrap: per-run cgroups: %v (run as root or with a delegated cgroup)", ErrUnavailable, err)
	}
	tmp := cfg.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	b := &Bwrap{path: path, cg: cg, tmp: tmp, log: log}
	if fi, err := os.Stat("/bin/sh"); err == nil && fi.Mode().IsRegular() {
		b.sh = "/bin/sh"
	}
	if n := cg.sweep(log); n > 0 {
		log.Info("sandbox: removed leftover run cgroups", "count", n)
	}
	sweepRunDirs(tmp, log)
	if err := probeOutDir(tmp); err != nil {
		return nil, fmt.Errorf("%w: bwrap: a sized %s: %v (run as root)", ErrUnavailable, OutDir, err)
	}
	return b, nil
}

// probeTimeout bounds the bwrap probe. Its failure is cached for the
// process and makes "auto" take Docker, so it is generous: a loaded 2-core
// machine can take tens of seconds to start a sandbox.
const probeTimeout = 60 * time.Second

func probeBwrap(path string) error {
	probeMu.Lock()
	defer probeMu.Unlock()
	if err, ok := probeDone[path]; ok {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", path, "--version")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// --die-with-parent: see startLocked.
	waited, err := startLocked(cmd)
	if err == nil {
		err = <-waited
	}
	if err != nil {
		err = fmt.Errorf("%w: bwrap probe: %v: %s", ErrUnavailable, err, bytes.TrimSpace(out.Bytes()))
	}
	probeDone[path] = err
	return err
}

// Run executes spec under bwrap. See [Runner] for the error contract.
func (b *Bwrap) Run(ctx context.Context, spec Spec) (Result, error) {
	if err := checkSpec(spec); err != nil {
		return Result{Backend: b.Name(), ExitCode: -1, Limits: spec.Limits.WithDefaults(), InfraError: err.Error()}, err
	}
	return b.run(ctx, spec)
}

// run is Run after checkSpec; tests call it to start runs that checkSpec
// refuses (a memory limit too small for bwrap itself).
func (b *Bwrap) run(ctx context.Context, spec Spec) (res Result, err error) {
	res = Result{Backend: b.Name(), ExitCode: -1}
	lim := spec.Limits.WithDefaults()
	res.Limits = lim
	fail := func(e error) (Result, error) {
		res.InfraError = e.Error()
		return res, e
	}
	root := spec.Environment.Root
	rootArgs, err := rootBinds(root)
	if err != nil {
		return fail(fmt.Errorf("sandbox: environment %q: %w", spec.Environment.Name, err))
	}
	argv := runArgv(spec)
	if !strings.Contains(argv[0], "/") && !onRootPath(root, argv[0]) {
		return fail(fmt.Errorf("sandbox: environment %q has no %s on %s", spec.Environment.Name, argv[0], DefaultPath))
	}

	dir, err := os.MkdirTemp(b.tmp, runDirPrefix+ownerTag()+"-")
	if err != nil {
		return fail(fmt.Errorf("sandbox: create run dir: %w", err))
	}
	defer func() {
		if rerr := removeRunDir(dir); rerr != nil {
			b.log.Warn("sandbox: remove run dir", "dir", dir, "err", rerr)
		}
	}()
	jobDir := filepath.Join(dir, "job")
	if err := writeJobDir(jobDir, spec.Files); err != nil {
		return fail(fmt.Errorf("sandbox: write %s: %w", JobDir, err))
	}
	// Inside the user namespace uid 65534 is the harness's uid.
	outDir, err := makeOutDir(dir, lim, os.Getuid(), os.Getgid())
	if err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}

	rls := clampRlimits(&lim, rlimitsFor(lim), hardLimit)
	res.Limits = lim

	cg, err := b.cg.create(lim)
	if err != nil {
		return fail(fmt.Errorf("sandbox: %w", err))
	}
	// kill ends the run from any goroutine (deadline, output budget,
	// cancellation); once the cgroup is being removed it does nothing, and
	// the removal waits for a kill in progress.
	var (
		killMu  sync.Mutex
		removed bool
	)
	kill := func() {
		killMu.Lock()
		defer killMu.Unlock()
		if !removed {
			cg.kill()
		}
	}
	defer func() {
		killMu.Lock()
		defer killMu.Unlock()
		removed = true
		if !cg.empty() {
			cg.kill()
		}
		if rerr := cg.remove(); rerr != nil {
			b.log.Warn("sandbox: remove cgroup", "err", rerr)
		}
	}()
	weight := cg.boostCPU() // see cgroup_weight_linux.go

	infoR, infoW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	defer infoR.Close()
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		return fail(err)
	}
	defer blockW.Close()

	args := []string{
		"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
	}
	args = append(args, rootArgs...)
	args = append(args,
		"--proc", "/proc", "--dev", "/dev",
		"--size", strconv.FormatInt(lim.TmpSize, 10), "--perms", "1777", "--tmpfs", "/tmp",
		"--ro-bind", jobDir, JobDir, "--bind", outDir, OutDir,
		"--remount-ro", "/", "--chdir", JobDir, "--clearenv")
	for _, kv := range runEnv(spec) {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	// fd 3: bwrap reports the sandbox's pid; fd 4: it waits for a byte
	// before exec'ing the program, which gives us time to move it into the
	// cgroup and set its rlimits with nothing forked yet.
	args = append(args, "--info-fd", "3", "--block-fd", "4", "--")
	args = append(args, argv...)

	var timedOut, outputHit atomic.Bool
	budget := newOutputBudget(lim.OutputKill, func() {
		outputHit.Store(true)
		go kill()
	})
	stdout := newCappedWriter(lim.StreamCap, budget)
	stderr := newCappedWriter(lim.StreamCap, budget)

	// On v1 a shell joins the run cgroup and execs bwrap (see
	// cgroup_join_linux.go): no migration of other processes, which would
	// cost an RCU grace period.
	var cmd *exec.Cmd
	script := joinScript(cg.tasksFiles())
	joined := script != "" && b.sh != ""
	if joined {
		cmd = exec.CommandContext(ctx, b.sh, append([]string{"-c", script, b.path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, b.path, args...)
	}
	cmd.Env = []string{"PATH=" + DefaultPath}
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if spec.Stdin != nil {
		cmd.Stdin = bytes.NewReader(spec.Stdin)
	}
	cmd.ExtraFiles = []*os.File{infoW, blockR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		kill()
		err := unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		if errors.Is(err, unix.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = time.Second
	// --die-with-parent ties bwrap to the thread that forks it: see
	// startLocked. cmd is waited for by receiving from waited, once.
	waited, err := startLocked(cmd)
	if err != nil {
		infoW.Close()
		blockR.Close()
		return fail(fmt.Errorf("sandbox: start bwrap: %w", err))
	}
	infoW.Close()
	blockR.Close()

	childPid, err := readInfo(infoR, 10*time.Second)
	switch {
	case err != nil:
	case joined:
		if !cg.has(childPid) {
			err = fmt.Errorf("sandbox pid %d is not in the run cgroup", childPid)
		}
	default:
		if err = cg.add(cmd.Process.Pid); err == nil {
			err = cg.add(childPid)
		}
	}
	if err == nil {
		err = setRlimits(childPid, rls)
	}
	// The sandbox's init (childPid, bwrap's pid 1) is blocked on fd 4 until
	// we write, so its pid cannot have been reused yet.
	initFD := -1
	if err == nil {
		if fd, perr := unix.PidfdOpen(childPid, 0); perr == nil {
			initFD = fd
			defer unix.Close(fd)
		}
	}
	if err != nil {
		kill()
		<-waited
		msg, _ := stderr.result()
		return fail(fmt.Errorf("sandbox: bwrap setup: %v: %s", err, setupDetail(msg, cmd, cg.stats().OOM, lim.Memory)))
	}

	start := time.Now()
	timer := time.AfterFunc(lim.Wall, func() {
		timedOut.Store(true)
		kill()
	})
	stopDecay := weight.decay(runBoostStep)
	_, werr := blockW.Write([]byte{'1'})
	blockW.Close()
	waitErr := <-waited
	timer.Stop()
	stopDecay()
	res.Wall = time.Since(start)
	if werr != nil && waitErr == nil {
		waitErr = werr
	}
	// bwrap returns as soon as the program exits; its pid 1 then dies
	// (--die-with-parent) and the kernel kills and reaps every other process
	// of the run's pid namespace before pid 1's exit is visible. Waiting for
	// that usually leaves an empty cgroup and spares the freeze-and-kill
	// loop; whatever is still there (or on a kernel without pidfds) is killed.
	if !exited(initFD, 100*time.Millisecond) || !cg.empty() {
		kill()
	}

	st := cg.stats()
	res.PeakMem, res.OOMKilled, res.PIDLimitHit = st.PeakMem, st.OOM, st.PIDsHit
	if st.HaveCPU {
		res.CPU = st.CPU
	} else if cmd.ProcessState != nil {
		res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	res.TimedOut = timedOut.Load()
	res.OutputLimitHit = outputHit.Load() || budget.hit()
	res.Stdout, res.StdoutDropped = stdout.result()
	res.Stderr, res.StderrDropped = stderr.result()
	outs := newOutputsReader(lim)
	readOutputs(outDir, outs)
	outs.apply(&res)
	res.OutFull = outFull(outDir)

	if ctx.Err() != nil && !res.TimedOut {
		return fail(fmt.Errorf("sandbox: run cancelled: %w", context.Cause(ctx)))
	}
	if ws, ok := exitStatus(cmd, waitErr); ok {
		setExit(&res, ws)
	} else if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return fail(fmt.Errorf("sandbox: wait for bwrap: %w", waitErr))
	}
	res.LimitHit = limitHitOf(res)
	return res, nil
}

// setupDetail says why bwrap failed before the program started: bwrap's
// stderr when it printed anything, else how it ended and whether the run's
// memory limit of memory bytes was hit (bwrap OOM-killed before reporting
// its pid prints nothing). It is never empty.
func setupDetail(stderr []byte, cmd *exec.Cmd, oom bool, memory int64) string {
	if msg := bytes.TrimSpace(stderr); len(msg) > 0 {
		return string(msg)
	}
	var d string
	switch ws, ok := exitStatus(cmd, nil); {
	case !ok:
		d = "bwrap printed nothing and its exit status is unknown"
	case ws.Signaled():
		d = fmt.Sprintf("bwrap printed nothing and was killed by signal %d (%s)", ws.Signal(), signalName(int(ws.Signal())))
	default:
		d = fmt.Sprintf("bwrap printed nothing and exited with status %d", ws.ExitStatus())
	}
	if oom {
		d += fmt.Sprintf("; the run's memory limit of %d bytes was hit during setup", memory)
	}
	return d
}

func exitStatus(cmd *exec.Cmd, waitErr error) (syscall.WaitStatus, bool) {
	if cmd.ProcessState == nil {
		return 0, false
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws, ok
}

// setExit maps bwrap's wait status: bwrap's init passes the program's
// exit code through (128+n for a death by signal n, see setExitCode); a
// signal on bwrap itself means the run was killed from outside.
func setExit(res *Result, ws syscall.WaitStatus) {
	switch {
	case ws.Signaled():
		res.ExitCode, res.Signal = -1, signalName(int(ws.Signal()))
	case ws.Exited():
		setExitCode(res, ws.ExitStatus())
	}
}

// exited waits up to d for the process of pidfd to exit and reports
// whether it did; it reports false at once for pidfd < 0.
func exited(pidfd int, d time.Duration) bool {
	if pidfd < 0 {
		return false
	}
	deadline := time.Now().Add(d)
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(max(time.Until(deadline), 0)/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0
	}
}

// readInfo reads bwrap's --info-fd JSON and returns the sandbox's pid as
// seen from the host.
func readInfo(r *os.File, timeout time.Duration) (int, error) {
	_ = r.SetReadDeadline(time.Now().Add(timeout))
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(r).Decode(&info); err != nil {
		return 0, fmt.Errorf("read bwrap info: %w", err)
	}
	if info.ChildPid <= 0 {
		return 0, errors.New("bwrap info has no child-pid")
	}
	return info.ChildPid, nil
}

var rlimitResources = map[string]int{
	"nofile": unix.RLIMIT_NOFILE,
	"fsize":  unix.RLIMIT_FSIZE,
	"core":   unix.RLIMIT_CORE,
	"cpu":    unix.RLIMIT_CPU,
	"stack":  unix.RLIMIT_STACK,
}

// hardLimit returns this process's hard limit, which a child inherits.
func hardLimit(name string) (uint64, bool) {
	res, ok := rlimitResources[name]
	if !ok {
		return 0, false
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(res, &rl); err != nil {
		return 0, false
	}
	return rl.Max, true
}

func setRlimits(pid int, rls []rlimit) error {
	for _, r := range rls {
		rl := unix.Rlimit{Cur: r.Soft, Max: r.Hard}
		if err := unix.Prlimit(pid, rlimitResources[r.Name], &rl, nil); err != nil {
			return fmt.Errorf("prlimit %s: %w", r.Name, err)
		}
	}
	return nil
}

// mountPoints are the directories that bwrap mounts over in every run.
var mountPoints = []string{"proc", "dev", "tmp", "job", "out"}

// rootBinds returns bwrap arguments that make root the read-only root of
// the sandbox. When root has a real directory for each of mountPoints (as
// every environment that `novelapi env build` makes has), that is one
// --ro-bind of root on /: every bwrap mount operation is a round trip
// between bwrap's privileged and unprivileged halves, so one bind instead
// of one per top-level entry saves a millisecond or more per run on a
// loaded host. Otherwise it rebuilds root's top level on bwrap's own tmpfs
// root: a --ro-bind per directory or file and a --symlink per symlink, so
// that the missing mount points can be created.
func rootBinds(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	dirs := 0
	for _, e := range ents {
		if e.IsDir() && slices.Contains(mountPoints, e.Name()) {
			dirs++
		}
	}
	if dirs == len(mountPoints) {
		return []string{"--ro-bind", root, "/"}, nil
	}
	var args []string
	for _, e := range ents {
		name := e.Name()
		if slices.Contains(mountPoints, name) {
			continue
		}
		p := filepath.Join(root, name)
		if e.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return nil, err
			}
			args = append(args, "--symlink", target, "/"+name)
			continue
		}
		args = append(args, "--ro-bind", p, "/"+name)
	}
	return args, nil
}

// onRootPath reports whether prog exists on DefaultPath inside root.
// Relative symlinks (merged /usr: bin -> usr/bin) resolve inside root.
func onRootPath(root, prog string) bool {
	for _, d := range filepath.SplitList(DefaultPath) {
		if _, err := os.Lstat(filepath.Join(root, d, prog)); err == nil {
			return true
		}
	}
	return false
}

// writeJobDir writes files into dir with their modes; directories end up
// 0555 and everything owned by the harness's uid, so the program can read
// but never change /job.
func writeJobDir(dir string, files []File) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	var dirs []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if d := filepath.Dir(p); d != dir {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			dirs = append(dirs, d)
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return err
		}
		if err := os.Chmod(p, fs.FileMode(fileMode(f))); err != nil {
			return err
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		for d := dirs[i]; d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			_ = os.Chmod(d, 0o555)
		}
	}
	return os.Chmod(dir, 0o555)
}
