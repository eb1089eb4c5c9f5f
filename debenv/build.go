package debenv

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/schollz/progressbar/v3"
)

// DefaultMirror is the Debian archive debootstrap downloads from when
// BuildConfig.Mirror is empty.
const DefaultMirror = "http://deb.debian.org/debian"

// suites are the Debian suites environments can be built from.
var suites = []string{"bookworm", "trixie", "sid"}

// Suites returns the Debian suites Build accepts.
func Suites() []string { return slices.Clone(suites) }

// A BuildConfig describes one environment for [Store.Build]. Build never
// modifies it.
type BuildConfig struct {
	// Name of the environment; "" means SUITE-LIB1-LIB2 (lower-cased
	// libraries in the given order, e.g. "trixie-numpy-scipy"). Names are
	// lower-case letters, digits, '.', '_' and '-' (they become Docker
	// image names).
	Name string
	// Suite is bookworm, trixie or sid.
	Suite string
	// Libraries are catalogue names ([LookupLibrary]).
	Libraries []string
	// Packages are extra Debian binary packages.
	Packages []string
	// Mirror is the Debian archive URL; "" means DefaultMirror.
	Mirror string
	// CacheDir holds downloaded .deb files per suite (CacheDir/SUITE) so
	// rebuilds download nothing; "" means the directory "debcache" next to
	// the store's Dir (home/debcache).
	CacheDir string
	// Progress receives a progress spinner; nil means none.
	Progress io.Writer
	// Log receives build stages; nil means slog.Default().
	Log *slog.Logger
}

// A MissingPackagesError reports Debian packages that a suite does not
// have, as debootstrap found when resolving --include.
type MissingPackagesError struct {
	Suite    string
	Packages []string
}

func (e *MissingPackagesError) Error() string {
	return fmt.Sprintf("Debian %s has no package %s (check the name with `apt-cache show` or https://packages.debian.org/%s; choose another suite or drop it)",
		e.Suite, strings.Join(e.Packages, ", "), e.Suite)
}

//go:embed py/envprobe.py
var envProbeScript string

var (
	envNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	debNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)
)

// RequestedPackages returns the Debian packages an environment with libs
// and extra packages installs: python3, each library's packages and extra,
// sorted and without duplicates.
func RequestedPackages(libs []Library, extra []string) []string {
	pkgs := []string{"python3"}
	for _, l := range libs {
		pkgs = append(pkgs, l.Packages...)
	}
	pkgs = append(pkgs, extra...)
	slices.Sort(pkgs)
	return slices.Compact(pkgs)
}

// Key returns the cache key of an environment: the hex SHA-256 of the suite
// and the sorted, de-duplicated package names (one per line). Two builds
// with the same key install the same thing, so Build reuses the first.
func Key(suite string, packages []string) string {
	p := slices.Clone(packages)
	slices.Sort(p)
	p = slices.Compact(p)
	h := sha256.New()
	fmt.Fprintf(h, "suite %s\n", suite)
	for _, s := range p {
		fmt.Fprintf(h, "package %s\n", s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Build builds the environment cfg describes with `debootstrap
// --variant=minbase` (docs/sandbox.md §4.5) and returns it.
//
// It is idempotent: when the store already holds cfg's name with the same
// [Key], Build returns it without building. Otherwise it builds in a hidden
// directory Dir/.build-NAME-* and, once the root filesystem and its manifest
// are complete, swaps it into place atomically, so readers see the old
// environment or the new one, never a part. An interrupted build leaves
// only a hidden .build-* directory that List and Get ignore and a later
// Build or Remove deletes. Builds of the same name serialize on the lock
// file Dir/.NAME.lock.
//
// The manifest is read from inside the new environment: Debian packages
// from its dpkg database, Python and library versions by running Python in
// it under bubblewrap. Build needs root (debootstrap) and bwrap. A package
// the suite lacks gives a [*MissingPackagesError].
func (s *Store) Build(ctx context.Context, cfg BuildConfig) (*sandbox.Environment, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if !slices.Contains(suites, cfg.Suite) {
		return nil, fmt.Errorf("unknown suite %q; known: %s", cfg.Suite, strings.Join(suites, ", "))
	}
	var libs []Library
	for _, n := range cfg.Libraries {
		l, err := LookupLibrary(n)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(libs, func(x Library) bool { return x.Name == l.Name }) {
			libs = append(libs, l)
		}
	}
	for _, p := range cfg.Packages {
		if !debNameRE.MatchString(p) {
			return nil, fmt.Errorf("package %q: not a Debian package name", p)
		}
	}
	name := cfg.Name
	if name == "" {
		parts := []string{cfg.Suite}
		for _, l := range libs {
			parts = append(parts, strings.ToLower(l.Name))
		}
		name = strings.Join(parts, "-")
	}
	if !envNameRE.MatchString(name) {
		return nil, fmt.Errorf("environment name %q: use lower-case letters, digits, '.', '_' and '-'", name)
	}
	mirror := cfg.Mirror
	if mirror == "" {
		mirror = DefaultMirror
	}
	cacheDir := cfg.CacheDir
	if cacheDir == "" {
		cacheDir = filepath.Join(filepath.Dir(s.Dir), "debcache")
	}
	pkgs := RequestedPackages(libs, cfg.Packages)
	key := Key(cfg.Suite, pkgs)

	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create store: %w", err)
	}
	unlock, err := s.lock(ctx, name, log)
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.sweep(name, log)

	if e, err := s.Get(name); err == nil && e.Manifest.Key == key {
		if _, err := os.Stat(filepath.Join(e.Root, "usr/bin/python3")); err == nil {
			log.Info("reusing environment (same suite and packages)", "env", name, "key", key[:12])
			return e, nil
		}
	}
	if err := buildPreflight(); err != nil {
		return nil, err
	}

	tmp, err := os.MkdirTemp(s.Dir, ".build-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("create build directory: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes 0700; sandboxes run as other users
		return nil, fmt.Errorf("create build directory: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			removeBuildDir(tmp)
		}
	}()
	root := filepath.Join(tmp, "rootfs")
	debCache, err := filepath.Abs(filepath.Join(cacheDir, cfg.Suite))
	if err == nil {
		err = os.MkdirAll(debCache, 0o755)
	}
	if err != nil {
		return nil, fmt.Errorf("create .deb cache: %w", err)
	}

	start := time.Now()
	log.Info("building environment", "env", name, "suite", cfg.Suite, "packages", strings.Join(pkgs, ","), "mirror", mirror)
	args := []string{"--variant=minbase", "--include=" + strings.Join(pkgs, ","), "--cache-dir=" + debCache, cfg.Suite, root, mirror}
	if err := runDebootstrap(ctx, args, cfg.Suite, filepath.Join(tmp, "debootstrap.log"), cfg.Progress, log); err != nil {
		return nil, err
	}
	log.Info("debootstrap done", "env", name, "took", time.Since(start).Round(time.Second))
	if err := finishRootfs(root); err != nil {
		return nil, fmt.Errorf("prepare root filesystem: %w", err)
	}

	m := sandbox.Manifest{
		Name:      name,
		Suite:     cfg.Suite,
		Requested: pkgs,
		Key:       key,
		BuiltAt:   time.Now().UTC().Truncate(time.Second),
	}
	for _, l := range libs {
		m.Libraries = append(m.Libraries, l.Name)
	}
	if m.Packages, err = readDpkgStatus(filepath.Join(root, "var/lib/dpkg/status")); err != nil {
		return nil, err
	}
	probe, err := probeEnvironment(ctx, root, libs, log)
	if err != nil {
		return nil, err
	}
	m.Python = probe.Python
	m.Versions = map[string]string{}
	for _, l := range libs {
		r := probe.Libraries[l.Name]
		if r.Error != "" {
			return nil, fmt.Errorf("environment %s: library %s does not load: %s", name, l.Name, r.Error)
		}
		if r.Source != "importlib.metadata" {
			log.Warn("library has no distribution metadata; recorded its __version__", "library", l.Name, "dist", l.Dist, "version", r.Version)
		}
		m.Versions[l.Name] = r.Version
	}
	if m.SizeBytes, err = diskUsage(root); err != nil {
		return nil, fmt.Errorf("measure root filesystem: %w", err)
	}
	if err := WriteManifest(tmp, m); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	if err := s.swapIn(tmp, name); err != nil {
		return nil, err
	}
	ok = true
	log.Info("environment built", "env", name, "python", m.Python, "versions", m.Versions,
		"size_mib", m.SizeBytes>>20, "took", time.Since(start).Round(time.Second))
	return s.Get(name)
}

// buildPreflight checks that debootstrap can run here, with errors that say
// what to do.
func buildPreflight() error {
	if os.Geteuid() != 0 {
		return errors.New("building an environment runs debootstrap, which needs root: run `novelapi env build` as root (e.g. with sudo), or on a machine where you are root")
	}
	if _, err := lookTool("debootstrap"); err != nil {
		return errors.New("debootstrap not found: install it with `apt-get install debootstrap`")
	}
	if _, err := lookTool("bwrap"); err != nil {
		return errors.New("bwrap not found (needed to read versions inside the new environment): install it with `apt-get install bubblewrap`")
	}
	return nil
}

// lookTool finds an executable on PATH or in the sbin directories, which a
// non-login root shell may lack on PATH.
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// debootstrap stages counted for progress, by line prefix.
var debootstrapStages = []struct{ prefix, verb string }{
	{"I: Retrieving ", "retrieving"},
	{"I: Extracting ", "extracting"},
	{"I: Unpacking ", "unpacking"},
	{"I: Configuring ", "configuring"},
}

// runDebootstrap runs debootstrap with args, writing its output to logPath,
// counting its stages into a spinner on progress, and turning a failure into
// an error quoting the end of its output.
func runDebootstrap(ctx context.Context, args []string, suite, logPath string, progress io.Writer, log *slog.Logger) error {
	path, err := lookTool("debootstrap")
	if err != nil {
		return errors.New("debootstrap not found: install it with `apt-get install debootstrap`")
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()

	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C.UTF-8",
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On cancellation SIGTERM the group first, so debootstrap's exit trap
	// unmounts /proc, /sys and device binds in the target; SIGKILL it 10 s later.
	var exited atomic.Bool
	cmd.Cancel = func() error {
		pgid := cmd.Process.Pid
		err := syscall.Kill(-pgid, syscall.SIGTERM)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		time.AfterFunc(10*time.Second, func() {
			if !exited.Load() {
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
		})
		return err
	}
	cmd.WaitDelay = 15 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw

	var bar *progressbar.ProgressBar
	if progress != nil {
		bar = progressbar.NewOptions(-1, progressbar.OptionSetWriter(progress),
			progressbar.OptionSetDescription("debootstrap "+suite), progressbar.OptionSpinnerType(14),
			progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}
	done := make(chan []string)
	go func() {
		var tail []string
		counts := map[string]int{}
		stage, stageIdx := "", -1
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logf, line)
			if tail = append(tail, line); len(tail) > 40 {
				tail = tail[1:]
			}
			for i, st := range debootstrapStages {
				if strings.HasPrefix(line, st.prefix) {
					counts[st.verb]++
					if i > stageIdx { // stages only move forward in the log
						stage, stageIdx = st.verb, i
						log.Info("debootstrap", "stage", stage)
					}
					if bar != nil {
						bar.Describe(fmt.Sprintf("debootstrap %s: %s (retrieved %d, unpacked %d, configured %d)",
							suite, stage, counts["retrieving"], counts["unpacking"], counts["configuring"]))
						bar.Add(1)
					}
				}
			}
		}
		io.Copy(io.Discard, pr)
		done <- tail
	}()
	err = cmd.Run()
	exited.Store(true)
	pw.Close()
	tail := <-done
	if bar != nil {
		bar.Finish()
	}
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("debootstrap interrupted: %w", context.Cause(ctx))
	}
	out := strings.Join(tail, "\n")
	if missing := parseMissingDebs(out); len(missing) > 0 {
		return &MissingPackagesError{Suite: suite, Packages: missing}
	}
	return fmt.Errorf("debootstrap %s: %v; last output:\n%s", suite, err, out)
}

// parseMissingDebs returns the packages of debootstrap's
// "E: Couldn't find these debs: A B" line in out, or nil.
func parseMissingDebs(out string) []string {
	const marker = "Couldn't find these debs:"
	for line := range strings.Lines(out) {
		if _, rest, ok := strings.Cut(line, marker); ok {
			return strings.Fields(rest)
		}
	}
	return nil
}

// finishRootfs removes apt's indexes and caches and creates the mount points
// the backends use (docs/sandbox.md §4.5 step 1): /job (root, 0755), /out
// (65534:65534, 0700) and /tmp.
func finishRootfs(root string) error {
	for _, pat := range []string{"var/lib/apt/lists/*", "var/cache/apt/*.bin", "var/cache/apt/archives/*.deb"} {
		matches, _ := filepath.Glob(filepath.Join(root, pat))
		for _, m := range matches {
			if filepath.Base(m) == "partial" || filepath.Base(m) == "lock" {
				continue
			}
			if err := os.RemoveAll(m); err != nil {
				return err
			}
		}
	}
	for _, d := range []struct {
		path     string
		perm     os.FileMode
		uid, gid int
	}{
		{"job", 0o755, 0, 0},
		{"out", 0o700, 65534, 65534},
		{"tmp", 0o777 | os.ModeSticky, 0, 0},
	} {
		p := filepath.Join(root, d.path)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
		if err := os.Chown(p, d.uid, d.gid); err != nil {
			return err
		}
		if err := os.Chmod(p, d.perm); err != nil {
			return err
		}
	}
	return nil
}

// readDpkgStatus returns the installed packages (name → version) recorded
// in the dpkg status file at path.
func readDpkgStatus(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read dpkg database: %w", err)
	}
	pkgs := map[string]string{}
	for stanza := range strings.SplitSeq(string(data), "\n\n") {
		var name, version, status string
		for line := range strings.Lines(stanza) {
			line = strings.TrimRight(line, "\n")
			if k, v, ok := strings.Cut(line, ": "); ok {
				switch k {
				case "Package":
					name = v
				case "Version":
					version = v
				case "Status":
					status = v
				}
			}
		}
		if name != "" && strings.HasSuffix(status, " installed") {
			pkgs[name] = version
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("read dpkg database %s: no installed packages", path)
	}
	return pkgs, nil
}

// probeResult is what py/envprobe.py prints.
type probeResult struct {
	Python    string `json:"python"`
	Libraries map[string]struct {
		Version string `json:"version"`
		Source  string `json:"source"`
		Error   string `json:"error"`
	} `json:"libraries"`
}

// probeEnvironment runs py/envprobe.py inside the root filesystem root with
// the bwrap backend (read-only root, no network, cleared environment) and
// returns the Python and library versions it reports.
func probeEnvironment(ctx context.Context, root string, libs []Library, log *slog.Logger) (probeResult, error) {
	type lib struct {
		Name   string `json:"name"`
		Import string `json:"import"`
		Dist   string `json:"dist"`
	}
	arg := []lib{}
	for _, l := range libs {
		arg = append(arg, lib{l.Name, l.Import, l.Dist})
	}
	argJSON, _ := json.Marshal(arg)
	runner, err := sandbox.NewBwrap(sandbox.BwrapConfig{Log: log})
	if err != nil {
		return probeResult{}, fmt.Errorf("read versions inside the environment: %w", err)
	}
	res, err := runner.Run(ctx, sandbox.Spec{
		Environment: &sandbox.Environment{Name: filepath.Base(filepath.Dir(root)), Root: root},
		Files:       []sandbox.File{{Path: "envprobe.py", Data: []byte(envProbeScript)}},
		Argv:        []string{"python3", "-I", "-B", "/job/envprobe.py", string(argJSON)},
		// Importing large libraries (torch) takes time, memory and threads.
		Limits: sandbox.Limits{Wall: 5 * time.Minute, Memory: 8 << 30, PIDs: 1024},
	})
	if err != nil {
		return probeResult{}, fmt.Errorf("read versions inside the environment: %w", err)
	}
	if res.ExitCode != 0 {
		return probeResult{}, fmt.Errorf("read versions inside the environment: python3 exited %d (signal %q, limit %q): %s",
			res.ExitCode, res.Signal, res.LimitHit, strings.TrimSpace(string(res.Stderr)))
	}
	var r probeResult
	if err := json.Unmarshal(res.Stdout, &r); err != nil {
		return probeResult{}, fmt.Errorf("read versions inside the environment: bad probe output %q: %v", res.Stdout, err)
	}
	return r, nil
}

// diskUsage returns the bytes of disk the tree at root occupies (like du:
// allocated blocks, hard links counted once).
func diskUsage(root string) (int64, error) {
	var total int64
	seen := map[uint64]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			total += fi.Size()
			return nil
		}
		if st.Nlink > 1 && !fi.IsDir() {
			if seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
		}
		total += st.Blocks * 512
		return nil
	})
	return total, err
}

// swapIn moves the complete build directory tmp to Dir/name, atomically
// exchanging it with an existing environment (renameat2 RENAME_EXCHANGE;
// where the file system lacks it, the old one is renamed away first), then
// deletes the old one. The caller holds name's lock.
func (s *Store) swapIn(tmp, name string) error {
	final := filepath.Join(s.Dir, name)
	if _, err := os.Lstat(final); err == nil {
		err := exchange(tmp, final)
		if err == nil {
			// tmp now holds the old environment.
			return os.RemoveAll(tmp)
		}
		if !errors.Is(err, errNoExchange) {
			return fmt.Errorf("swap in environment %s: %w", name, err)
		}
		old := filepath.Join(s.Dir, fmt.Sprintf(".build-%s-old%d", name, time.Now().UnixNano()))
		if err := os.Rename(final, old); err != nil {
			return fmt.Errorf("move old environment %s away: %w", name, err)
		}
		if err := os.Rename(tmp, final); err != nil {
			return fmt.Errorf("move environment %s into place: %w", name, err)
		}
		return os.RemoveAll(old)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("move environment %s into place: %w", name, err)
	}
	return nil
}

// lock takes the exclusive lock Dir/.NAME.lock, waiting while another
// process holds it, and returns its release function.
func (s *Store) lock(ctx context.Context, name string, log *slog.Logger) (func(), error) {
	f, err := os.OpenFile(filepath.Join(s.Dir, "."+name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock environment %s: %w", name, err)
	}
	warned := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock environment %s: %w", name, err)
		}
		if !warned {
			log.Info("waiting for another build or removal of the same environment", "env", name)
			warned = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// sweep deletes leftover .build-* directories of interrupted builds: those
// of name (whose lock the caller holds) and those of any other name whose
// lock is free.
func (s *Store) sweep(name string, log *slog.Logger) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), ".build-")
		if !ok || !e.IsDir() {
			continue
		}
		i := strings.LastIndexByte(rest, '-')
		if i <= 0 {
			continue
		}
		owner := rest[:i]
		if owner != name {
			f, err := os.OpenFile(filepath.Join(s.Dir, "."+owner+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
			if err != nil {
				continue
			}
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
				f.Close() // a build of owner is running
				continue
			}
			defer f.Close()
		}
		log.Info("removing leftover of an interrupted build", "dir", e.Name())
		removeBuildDir(filepath.Join(s.Dir, e.Name()))
	}
}

// Remove deletes the environment name (its Docker image, if any, stays in
// the engine). It takes name's lock, so it waits for a running build, and
// it sweeps leftovers of interrupted builds. Removing a missing environment
// is an error wrapping ErrUnknownEnvironment.
func (s *Store) Remove(ctx context.Context, name string) error {
	if _, err := s.Get(name); err != nil {
		if !envNameRE.MatchString(name) {
			return err
		}
		if _, serr := os.Stat(filepath.Join(s.Dir, name)); serr != nil {
			return err
		}
	}
	unlock, err := s.lock(ctx, name, slog.Default())
	if err != nil {
		return err
	}
	defer unlock()
	s.sweep(name, slog.New(slog.DiscardHandler))
	old := filepath.Join(s.Dir, fmt.Sprintf(".build-%s-rm%d", name, time.Now().UnixNano()))
	if err := os.Rename(filepath.Join(s.Dir, name), old); err != nil {
		return fmt.Errorf("remove environment %s: %w", name, err)
	}
	if err := removeBuildDir(old); err != nil {
		return fmt.Errorf("remove environment %s: %w", name, err)
	}
	return nil
}

// removeBuildDir deletes dir after lazily unmounting whatever is mounted
// below it: a debootstrap killed mid-run leaves /proc, /sys and bind mounts
// of host devices in its target, which a plain RemoveAll would descend into.
func removeBuildDir(dir string) error {
	unmountUnder(dir)
	return os.RemoveAll(dir)
}

// unmountUnder detaches every mount point strictly below dir, deepest first.
func unmountUnder(dir string) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	prefix := filepath.Clean(dir) + "/"
	var mps []string
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMountinfo(f[4])
		if strings.HasPrefix(mp, prefix) {
			mps = append(mps, mp)
		}
	}
	slices.SortFunc(mps, func(a, b string) int { return len(b) - len(a) })
	for _, mp := range mps {
		detach(mp)
	}
}

// unescapeMountinfo decodes the octal escapes (\040 for space) of a
// /proc/self/mountinfo path.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c byte
			ok := true
			for _, d := range s[i+1 : i+4] {
				if d < '0' || d > '7' {
					ok = false
					break
				}
				c = c*8 + byte(d-'0')
			}
			if ok {
				b.WriteByte(c)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
