package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Labels put on every container the Docker backend creates; the start-up
// sweep finds leftovers by LabelManaged (docs/sandbox.md §4.4 step 8).
const (
	LabelManaged = "novelapi.managed" // "1"
	LabelOwner   = "novelapi.owner"   // HOST/PID-STARTTICKS of the harness process
)

// dockerPoll is how often a running container's own cgroup is read for a
// refused fork.
const dockerPoll = 50 * time.Millisecond

// dockerAPI is the part of the Engine API client the backend uses, kept
// small so the v28 client can be swapped for its successor module
// (docs/sandbox.md §4.4).
type dockerAPI interface {
	Ping(ctx context.Context) (types.Ping, error)
	Info(ctx context.Context) (system.Info, error)
	DaemonHost() string
	ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	ContainerCreate(ctx context.Context, cfg *container.Config, hc *container.HostConfig, nc *network.NetworkingConfig, p *ocispec.Platform, name string) (container.CreateResponse, error)
	CopyToContainer(ctx context.Context, id, dst string, content io.Reader, opts container.CopyToContainerOptions) error
	CopyFromContainer(ctx context.Context, id, src string) (io.ReadCloser, container.PathStat, error)
	ContainerAttach(ctx context.Context, id string, opts container.AttachOptions) (types.HijackedResponse, error)
	ContainerWait(ctx context.Context, id string, cond container.WaitCondition) (<-chan container.WaitResponse, <-chan error)
	ContainerStart(ctx context.Context, id string, opts container.StartOptions) error
	ContainerKill(ctx context.Context, id, signal string) error
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
	ContainerRemove(ctx context.Context, id string, opts container.RemoveOptions) error
	ContainerList(ctx context.Context, opts container.ListOptions) ([]container.Summary, error)
	Close() error
}

// DockerConfig configures the Docker backend. The engine is found through
// the usual DOCKER_HOST/DOCKER_CERT_PATH/DOCKER_TLS_VERIFY variables.
type DockerConfig struct {
	// Log receives warnings (sweeps, cleanup failures); nil means slog.Default().
	Log *slog.Logger
	// CgroupRoot is where the host's cgroup hierarchy is mounted; "" means
	// /sys/fs/cgroup. It is read only when the engine is local.
	CgroupRoot string
	// TempDir holds the per-run directories whose tmpfs is bound at
	// OutDir; "" means os.TempDir().
	TempDir string
}

// Docker runs programs in one container per run from the environment's
// imported image (Manifest.DockerImage, see `novelapi env docker`), as
// docs/sandbox.md §4.4 describes: no network, read-only root, tmpfs /tmp,
// /job on an anonymous volume, /out bound from a sized tmpfs in a run
// directory of the harness (see below), all capabilities dropped,
// no-new-privileges, docker-init as PID 1, no log driver (output comes
// through attach), memory = memory+swap, 1 CPU, a pids limit and ulimits,
// user 65534:65534. Containers carry LabelManaged and are force-removed
// with their volumes after every run.
//
// CPU time, peak memory and pids-limit hits are measured from outside the
// container, from a parent cgroup that novelapi creates per run and removes
// afterwards (the engine removes the container's own cgroup when it exits),
// when the engine is local (unix socket), uses the cgroupfs driver and its
// cgroups are the ones mounted at DockerConfig.CgroupRoot. Elsewhere (a
// remote engine, the systemd driver, another OS) Result.CPU and PeakMem are
// 0 (unknown) and PIDLimitHit false, with no error. On cgroup v1, and on v2
// kernels whose pids.events is not hierarchical, the kernel records a
// refused fork only in the container's own cgroup, which is gone after the
// exit: PIDLimitHit then comes from reading it while the container runs
// (every dockerPoll, and before a kill), or from the process count having
// reached the limit after the start; a limit no higher than the runtime's
// own start-up tasks (5-8 measured) may go unseen by the latter.
//
// /out is bounded like the bwrap backend's: the harness mounts a tmpfs of
// Limits.OutSize bytes and Limits.OutFiles files in a run directory, binds
// it at /out and reads it back after the exit. That needs a harness that
// can mount (root) and an engine that sees the harness's mounts (a local
// daemon in the same mount namespace; the bound directory exists only
// inside the tmpfs, so any other engine refuses the bind rather than
// binding something else). Where either is missing, /out is an anonymous
// volume on the engine's disk as docs/sandbox.md §4.4 step 6 describes,
// bounded in what is read back (Result.Outputs' caps) but not in what the
// program can write there within its wall time; this is logged once, at
// Warn, and Result.OutFull is then always false.
//
// A Docker is safe for concurrent use; Close releases the client.
type Docker struct {
	cli dockerAPI
	log *slog.Logger
	cg  *dockerCgroups // nil: CPU, peak memory and pids hits are not measured
	tmp string
	// volumeOut is set once /out cannot be a bound tmpfs here.
	volumeOut atomic.Bool
}

var _ Runner = (*Docker)(nil)

// NewDocker connects to the engine with API version negotiation (a v28
// client talks to a 20.10 engine at API 1.41), pings it and removes
// containers left by harness processes that died (P21). It returns an error
// wrapping ErrUnavailable when no engine answers.
func NewDocker(cfg DockerConfig) (*Docker, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("%w: docker: %v", ErrUnavailable, err)
	}
	return newDocker(cli, cfg)
}

func newDocker(cli dockerAPI, cfg DockerConfig) (*Docker, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w: docker: no engine answers: %v", ErrUnavailable, err)
	}
	tmp := cfg.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	d := &Docker{cli: cli, log: log, tmp: tmp}
	d.sweep(ctx)
	sweepRunDirs(tmp, log)
	d.cg = d.openCgroups(ctx, cfg.CgroupRoot)
	return d, nil
}

// openCgroups returns the host cgroups the engine's containers land in, or
// nil (logged once at Info) when they cannot be read from here. It sweeps
// the parents left by dead harnesses.
func (d *Docker) openCgroups(ctx context.Context, root string) *dockerCgroups {
	info, err := d.cli.Info(ctx)
	if err != nil {
		d.log.Info("sandbox: docker: CPU time, peak memory and pids-limit hits not measured", "reason", fmt.Sprintf("engine info: %v", err))
		return nil
	}
	cg, err := openDockerCgroups(root, d.cli.DaemonHost(), info.CgroupDriver, info.CgroupVersion)
	if err != nil {
		d.log.Info("sandbox: docker: CPU time, peak memory and pids-limit hits not measured", "reason", err.Error())
		return nil
	}
	if n := cg.sweep(d.log); n > 0 {
		d.log.Info("sandbox: docker: removed leftover run cgroups", "count", n)
	}
	return cg
}

// Name returns "docker".
func (d *Docker) Name() string { return "docker" }

// Close releases the engine client.
func (d *Docker) Close() error { return d.cli.Close() }

func hostOwner() string {
	h, _ := os.Hostname()
	return h + "/" + ownerTag()
}

// sweep removes managed containers whose harness process on this host is
// gone; containers of live harnesses (concurrent runs) stay.
func (d *Docker) sweep(ctx context.Context) {
	list, err := d.cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=1"))})
	if err != nil {
		d.log.Warn("sandbox: docker sweep: list containers", "err", err)
		return
	}
	host, _ := os.Hostname()
	for _, c := range list {
		h, tag, ok := strings.Cut(c.Labels[LabelOwner], "/")
		if ok && h == host && ownerAlive(tag) {
			continue
		}
		if ok && h != host {
			continue // another machine's harness sharing this engine
		}
		if err := d.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !cerrdefs.IsNotFound(err) {
			d.log.Warn("sandbox: docker sweep: remove container", "id", c.ID, "err", err)
		}
	}
}

// Run executes spec in a fresh container. See [Runner] for the error contract.
func (d *Docker) Run(ctx context.Context, spec Spec) (res Result, err error) {
	res = Result{Backend: d.Name(), ExitCode: -1}
	lim := spec.Limits.WithDefaults()
	rls := clampRlimits(&lim, rlimitsFor(lim), func(string) (uint64, bool) { return 0, false })
	res.Limits = lim
	fail := func(e error) (Result, error) {
		res.InfraError = e.Error()
		return res, e
	}
	if err := checkSpec(spec); err != nil {
		return fail(err)
	}
	img := spec.Environment.Manifest.DockerImage
	if img == "" {
		return fail(fmt.Errorf("%w %q (run `novelapi env docker %s`)", ErrNoImage, spec.Environment.Name, spec.Environment.Name))
	}
	if _, err := d.cli.ImageInspect(ctx, img); err != nil {
		if cerrdefs.IsNotFound(err) {
			return fail(fmt.Errorf("%w %q: image %s is not in the engine (run `novelapi env docker %s`)", ErrNoImage, spec.Environment.Name, img, spec.Environment.Name))
		}
		return fail(fmt.Errorf("sandbox: docker: inspect image %s: %w", img, err))
	}
	jobTar, err := tarFiles(spec.Files)
	if err != nil {
		return fail(err)
	}

	ulimits := make([]*container.Ulimit, 0, len(rls))
	for _, r := range rls {
		ulimits = append(ulimits, &container.Ulimit{Name: r.Name, Soft: int64(r.Soft), Hard: int64(r.Hard)})
	}
	pids := int64(lim.PIDs)
	withStdin := spec.Stdin != nil
	cfg := &container.Config{
		Image:      img,
		Cmd:        runArgv(spec),
		User:       "65534:65534",
		WorkingDir: JobDir,
		Env:        runEnv(spec),
		Labels:     map[string]string{LabelManaged: "1", LabelOwner: hostOwner()},
		// The image's own ENTRYPOINT (if any) must not wrap our argv.
		Entrypoint:      []string{},
		NetworkDisabled: true,
		AttachStdout:    true,
		AttachStderr:    true,
		AttachStdin:     withStdin,
		OpenStdin:       withStdin,
		StdinOnce:       withStdin,
	}
	hc := &container.HostConfig{
		NetworkMode:    "none",
		ReadonlyRootfs: true,
		Tmpfs:          map[string]string{"/tmp": fmt.Sprintf("rw,nosuid,nodev,size=%d,mode=1777", lim.TmpSize)},
		Mounts: []mount.Mount{
			{Type: mount.TypeVolume, Target: JobDir},
			{Type: mount.TypeVolume, Target: OutDir}, // replaced by the bound tmpfs below where possible
		},
		CapDrop:     []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges"},
		Init:        ptr(true),
		LogConfig:   container.LogConfig{Type: "none"},
		Resources: container.Resources{
			Memory:     lim.Memory,
			MemorySwap: lim.Memory,
			NanoCPUs:   int64(lim.CPUs * 1e9),
			PidsLimit:  &pids,
			Ulimits:    ulimits,
		},
	}
	var cg *dockerRun
	if d.cg != nil {
		if c, cerr := d.cg.create(); cerr != nil {
			d.log.Warn("sandbox: docker: run cgroup; CPU time, peak memory and pids-limit hit not measured", "err", cerr)
		} else {
			cg = c
			hc.CgroupParent = cg.parent
			// Deferred before the container's removal, so it runs after it:
			// the parent can go only once the container's cgroup has.
			defer func() {
				if err := cg.remove(); err != nil {
					d.log.Warn("sandbox: docker: remove run cgroup", "err", err)
				}
			}()
		}
	}
	// Deferred before the container's removal, so it runs after it.
	runDir, outDir, err := d.makeOutDir(lim)
	if err != nil {
		return fail(fmt.Errorf("sandbox: docker: %w", err))
	}
	if runDir != "" {
		defer func() {
			if err := removeRunDir(runDir); err != nil {
				d.log.Warn("sandbox: docker: remove run dir", "dir", runDir, "err", err)
			}
		}()
		hc.Mounts[1] = mount.Mount{Type: mount.TypeBind, Source: outDir, Target: OutDir}
	}
	created, err := d.cli.ContainerCreate(ctx, cfg, hc, nil, nil, "")
	if err != nil && outDir != "" && strings.Contains(err.Error(), "bind source path does not exist") {
		// The engine does not see the harness's mounts.
		d.useVolumeOut(err.Error())
		outDir = ""
		hc.Mounts[1] = mount.Mount{Type: mount.TypeVolume, Target: OutDir}
		created, err = d.cli.ContainerCreate(ctx, cfg, hc, nil, nil, "")
	}
	if err != nil {
		return fail(fmt.Errorf("sandbox: docker: create container: %w", err))
	}
	id := created.ID
	defer d.remove(id)

	if err := d.cli.CopyToContainer(ctx, id, JobDir, jobTar, container.CopyToContainerOptions{}); err != nil {
		return fail(fmt.Errorf("sandbox: docker: copy files to %s: %w", JobDir, err))
	}
	att, err := d.cli.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdout: true, Stderr: true, Stdin: withStdin})
	if err != nil {
		return fail(fmt.Errorf("sandbox: docker: attach: %w", err))
	}
	defer att.Close()

	outputKill := make(chan struct{}, 1)
	budget := newOutputBudget(lim.OutputKill, func() {
		select {
		case outputKill <- struct{}{}:
		default:
		}
	})
	stdout := newCappedWriter(lim.StreamCap, budget)
	stderr := newCappedWriter(lim.StreamCap, budget)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = stdcopy.StdCopy(stdout, stderr, att.Reader)
	}()

	// Wait before start so a fast exit is not missed (§4.4 step 4). The
	// wait uses its own context: the caller's cancellation is handled below
	// by killing the container, then waiting for it.
	waitCtx, waitCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer waitCancel()
	waitCh, waitErrCh := d.cli.ContainerWait(waitCtx, id, container.WaitConditionNextExit)
	if err := d.cli.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		return fail(fmt.Errorf("sandbox: docker: start: %w", err))
	}
	start := time.Now()
	cg.started(id)
	if withStdin {
		go func() {
			_, _ = att.Conn.Write(spec.Stdin)
			_ = att.CloseWrite()
		}()
	}
	timer := time.NewTimer(lim.Wall)
	defer timer.Stop()

	var poll <-chan time.Time
	if cg != nil {
		tick := time.NewTicker(dockerPoll)
		defer tick.Stop()
		poll = tick.C
	}
	kill := func() {
		cg.poll() // the last look at the container's own cgroup
		d.kill(id)
	}

	var timedOut, outputHit, cancelled atomic.Bool
	exitCode := int64(-1)
	haveExit := false
	for done := false; !done; {
		select {
		case w := <-waitCh:
			exitCode, haveExit, done = w.StatusCode, true, true
		case err := <-waitErrCh:
			return fail(fmt.Errorf("sandbox: docker: wait: %w", err))
		case <-poll:
			cg.poll()
		case <-timer.C:
			timedOut.Store(true)
			kill()
		case <-outputKill:
			outputHit.Store(true)
			kill()
		case <-ctx.Done():
			cancelled.Store(true)
			kill()
		}
		if !done && (timedOut.Load() || outputHit.Load() || cancelled.Load()) {
			// Killed: the exit must follow within the grace period.
			select {
			case w := <-waitCh:
				exitCode, haveExit, done = w.StatusCode, true, true
			case err := <-waitErrCh:
				return fail(fmt.Errorf("sandbox: docker: wait after kill: %w", err))
			case <-time.After(5 * time.Second):
				return fail(fmt.Errorf("sandbox: docker: container %s did not exit within 5s of SIGKILL", id))
			}
		}
	}
	res.Wall = time.Since(start)
	select {
	case <-copied:
	case <-time.After(time.Second):
		att.Close()
		<-copied
	}
	if cancelled.Load() && !timedOut.Load() {
		return fail(fmt.Errorf("sandbox: run cancelled: %w", context.Cause(ctx)))
	}

	ictx, icancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer icancel()
	if info, err := d.cli.ContainerInspect(ictx, id); err == nil && info.State != nil {
		res.OOMKilled = info.State.OOMKilled
		if !haveExit {
			exitCode = int64(info.State.ExitCode)
		}
	}
	// Every process of the container has exited (the kernel reaps a PID
	// namespace before its init is reported gone), so the counters are final.
	if cg != nil && !cg.apply(&res, lim.PIDs) {
		d.log.Warn("sandbox: docker: the run cgroup saw nothing of the container; CPU time, peak memory and pids-limit hit not measured", "cgroup", cg.parent)
	}
	outs := newOutputsReader(lim)
	if outDir != "" {
		readOutputs(outDir, outs)
		res.OutFull = outFull(outDir)
	} else {
		d.outputs(ictx, id, outs)
	}
	outs.apply(&res)
	res.TimedOut = timedOut.Load()
	res.OutputLimitHit = outputHit.Load() || budget.hit()
	res.Stdout, res.StdoutDropped = stdout.result()
	res.Stderr, res.StderrDropped = stderr.result()
	setExitCode(&res, int(exitCode))
	res.LimitHit = limitHitOf(res)
	return res, nil
}

// kill SIGKILLs the container with a fresh context (the run's may have
// expired; §4.4 step 5). Init and the PID namespace take every process
// down with it.
func (d *Docker) kill(id string) {
	kc, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.cli.ContainerKill(kc, id, "KILL"); err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		d.log.Warn("sandbox: docker: kill", "id", id, "err", err)
	}
}

// remove force-removes the container and its volumes, retrying once
// (§4.4 step 7).
func (d *Docker) remove(id string) {
	for i := 0; i < 2; i++ {
		rc, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := d.cli.ContainerRemove(rc, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		cancel()
		if err == nil || cerrdefs.IsNotFound(err) {
			return
		}
		d.log.Warn("sandbox: docker: remove container", "id", id, "err", err)
		time.Sleep(500 * time.Millisecond)
	}
}

// makeOutDir returns a new run directory and the directory in its tmpfs
// to bind at /out, or "", "" when /out must be a volume here: the harness
// may not mount (EPERM), which is then remembered. Other errors (no room
// for a run directory) are the run's.
func (d *Docker) makeOutDir(lim Limits) (runDir, outDir string, err error) {
	if d.volumeOut.Load() {
		return "", "", nil
	}
	dir, err := os.MkdirTemp(d.tmp, runDirPrefix+ownerTag()+"-")
	if err != nil {
		return "", "", fmt.Errorf("create run dir: %w", err)
	}
	// The program runs as 65534:65534 (no user namespace remapping).
	out, err := makeOutDir(dir, lim, 65534, 65534)
	if err != nil {
		_ = removeRunDir(dir)
		if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, errors.ErrUnsupported) {
			return "", "", err
		}
		d.useVolumeOut(err.Error())
		return "", "", nil
	}
	return dir, out, nil
}

// useVolumeOut makes every later run's /out an anonymous volume, logging
// why the first time.
func (d *Docker) useVolumeOut(reason string) {
	if d.volumeOut.CompareAndSwap(false, true) {
		d.log.Warn("sandbox: docker: "+OutDir+" is an anonymous volume on the engine's disk, bounded only in what is read back", "reason", reason)
	}
}

// outputs offers the regular files under /out of the stopped container to
// o, for an /out on a volume. The tar stream is read only as far as o
// keeps bytes (tar skips the rest of each entry).
//
// /out takes the image directory's ownership (a new volume copies it): the
// environment's root filesystem has /out owned by 65534:65534. It is not a
// tmpfs inside the container, whose content would be gone by the time
// CopyFromContainer reads it (moby/moby#22020), nor a tmpfs-backed local
// volume: the driver unmounts it when the container stops.
func (d *Docker) outputs(ctx context.Context, id string, o *outputsReader) {
	rc, _, err := d.cli.CopyFromContainer(ctx, id, OutDir+"/.")
	if err != nil {
		d.log.Warn("sandbox: docker: copy outputs", "id", id, "err", err)
		return
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err != nil {
			return
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := strings.TrimPrefix(path.Clean(h.Name), "./")
		if _, rest, ok := strings.Cut(name, "/"); ok && strings.HasPrefix(name, path.Base(OutDir)+"/") {
			name = rest
		}
		o.add(name, h.Size, tr)
	}
}

// tarFiles builds the /job tar stream: files with their modes (never
// writable), directories 0555. The daemon ignores tar ownership, so
// everything is root-owned inside (§4.4 step 2).
func tarFiles(files []File) (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f.Path); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var dirList []string
	for d := range dirs {
		dirList = append(dirList, d)
	}
	// Parents first.
	sortByDepth(dirList)
	for _, d := range dirList {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o555}); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.Path, Mode: int64(fileMode(f)), Size: int64(len(f.Data))}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}

func sortByDepth(dirs []string) {
	for i := 1; i < len(dirs); i++ {
		for j := i; j > 0 && depthLess(dirs[j], dirs[j-1]); j-- {
			dirs[j], dirs[j-1] = dirs[j-1], dirs[j]
		}
	}
}

func depthLess(a, b string) bool {
	da, db := strings.Count(a, "/"), strings.Count(b, "/")
	if da != db {
		return da < db
	}
	return a < b
}

func ptr[T any](v T) *T { return &v }
