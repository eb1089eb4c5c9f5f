package debenv

import (
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
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
	"syscall"
	"time"

	"github.com/novelapi/novelapi/sandbox"
)

// DefaultMirror is the Debian archive debootstrap downloads from when
// BuildConfig.Mirror is empty.
const DefaultMirror = "http://deb.debian.org/debian"

// A BuildConfig describes one environment for [Store.Build]. Build never
// modifies it.
type BuildConfig struct {
	// Name of the environment; "" means SUITE-LIB1-LIB2 (lower-cased
	// libraries in the given order, e.g. "trixie-numpy-scipy"). Names are
	// lower-case letters, digits, '.', '_' and '-' (they become Docker
	// image names).
	Name string
	// Suite is bookworm, trixie, sid or experimental ([Suites]).
	Suite string
	// Libraries are catalogue names, Debian packages and @presets, as
	// [ResolveLibraries] takes them.
	Libraries []string
	// Packages are extra Debian binary packages.
	Packages []string
	// IndexMaxAge is how long a cached Packages index is trusted; 0 means
	// DefaultIndexMaxAge.
	IndexMaxAge time.Duration
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

// Build builds the environment cfg describes and returns it: `debootstrap
// --variant=minbase` of the suite's base system, then apt inside it
// installs python3 and the requested packages (docs/environments.md §2). apt
// resolves dependencies that only a virtual package satisfies, which
// debootstrap's --include cannot; for experimental it takes each requested
// package that experimental has from experimental (PKG/experimental) and
// the rest from sid. Downloaded .deb files are kept per base suite in
// CacheDir, so a rebuild downloads nothing it already has.
//
// Library names are resolved against the suite's Packages index before
// anything is built ([ResolveLibraries]): an unknown name is an
// [*UnknownPackageError] naming the suite and the nearest package names.
//
// It is idempotent: when the store already holds cfg's name with the same
// [Key], Build returns it without building (reading the libraries' details
// into a manifest that lacks them). Otherwise it builds in a hidden
// directory Dir/.build-NAME-* and, once the root filesystem and its
// manifest are complete, swaps it into place atomically, so readers see the
// old environment or the new one, never a part. An interrupted build leaves
// only a hidden .build-* directory that List and Get ignore and a later
// Build or Remove deletes. Builds of the same name serialize on the lock
// file Dir/.NAME.lock.
//
// The manifest is read from inside the new environment: Debian packages
// from its dpkg database, each library's distribution, import names and
// version from its packages' files and by importing it under bubblewrap. A
// library that does not load does not fail the build: its manifest entry
// says why (sandbox.InstalledLibrary.Error) and Build logs a warning. Build
// needs root (debootstrap, apt) and bwrap.
func (s *Store) Build(ctx context.Context, cfg BuildConfig) (*sandbox.Environment, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if !slices.Contains(suites, cfg.Suite) {
		return nil, fmt.Errorf("unknown suite %q; known: %s", cfg.Suite, strings.Join(suites, ", "))
	}
	for _, p := range cfg.Packages {
		if !debNameRE.MatchString(p) {
			return nil, fmt.Errorf("package %q: not a Debian package name", p)
		}
	}
	requested, err := ExpandLibraries(cfg.Libraries)
	if err != nil {
		return nil, err
	}
	name := cfg.Name
	if name == "" {
		parts := []string{cfg.Suite}
		for _, n := range cfg.Libraries {
			parts = append(parts, strings.ToLower(strings.TrimPrefix(strings.TrimSpace(n), "@")))
		}
		name = strings.Join(parts, "-")
	}
	if !envNameRE.MatchString(name) {
		return nil, fmt.Errorf("environment name %q: use lower-case letters, digits, '.', '_' and '-'", name)
	}
	mirror := strings.TrimRight(cmp.Or(cfg.Mirror, DefaultMirror), "/")
	var indexes []*PackageIndex
	for _, su := range indexSuites(cfg.Suite) {
		ix, err := s.PackageIndex(ctx, su, IndexConfig{Mirror: mirror, MaxAge: cfg.IndexMaxAge, Log: log})
		if err != nil {
			return nil, err
		}
		indexes = append(indexes, ix)
	}
	libs, err := ResolveLibraries(requested, indexes...)
	if err != nil {
		return nil, err
	}
	if err := ResolvePackages(cfg.Packages, indexes...); err != nil {
		return nil, err
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
			return s.completeManifest(ctx, e, libs, log)
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
	debCache, err := filepath.Abs(filepath.Join(cacheDir, baseSuite(cfg.Suite)))
	if err == nil {
		err = os.MkdirAll(debCache, 0o755)
	}
	if err != nil {
		return nil, fmt.Errorf("create .deb cache: %w", err)
	}

	// debootstrap and apt of two builds must not share a .deb cache at
	// once (apt holds its archives lock for the whole install).
	unlockCache, err := lockFile(ctx, filepath.Join(debCache, ".novelapi.lock"), func() {
		log.Info("waiting for another build of the same suite (they share the .deb cache)", "env", name, "cache", debCache)
	})
	if err != nil {
		return nil, fmt.Errorf("lock .deb cache %s: %w", debCache, err)
	}
	defer unlockCache()

	start := time.Now()
	log.Info("building environment", "env", name, "suite", cfg.Suite, "packages", strings.Join(pkgs, ","), "mirror", mirror)
	args := []string{"--variant=minbase", "--cache-dir=" + debCache, baseSuite(cfg.Suite), root, mirror}
	if err := runDebootstrap(ctx, args, baseSuite(cfg.Suite), filepath.Join(tmp, "debootstrap.log"), cfg.Progress, log); err != nil {
		return nil, err
	}
	log.Info("debootstrap done", "env", name, "took", time.Since(start).Round(time.Second))
	install := aptTargets(pkgs, cfg.Suite, indexes)
	aptStart := time.Now()
	if err := aptInstall(ctx, aptConfig{
		Root: root, Suite: cfg.Suite, Mirror: mirror, DebCache: debCache, Targets: install,
		LogPath: filepath.Join(tmp, "apt.log"), Progress: cfg.Progress, Log: log,
	}); err != nil {
		return nil, err
	}
	log.Info("apt install done", "env", name, "took", time.Since(aptStart).Round(time.Second))
	// Nothing stays mounted in an environment: a /proc or /sys that
	// debootstrap could not unmount (busy at its exit) would be bound
	// into every sandbox and walked by the measurement below.
	unmountUnder(root)
	if err := finishRootfs(root); err != nil {
		return nil, fmt.Errorf("prepare root filesystem: %w", err)
	}

	m := sandbox.Manifest{
		Name:       name,
		Suite:      cfg.Suite,
		Requested:  pkgs,
		Key:        key,
		BuiltAt:    time.Now().UTC().Truncate(time.Second),
		Sources:    sourceLines(cfg.Suite, mirror),
		AptOptions: aptOptions(cfg.Suite),
	}
	if m.Packages, err = readDpkgStatus(filepath.Join(root, "var/lib/dpkg/status")); err != nil {
		return nil, err
	}
	if err := probeLibraries(ctx, root, libs, install, &m, log); err != nil {
		return nil, err
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

// completeManifest fills the library details of a reused environment whose
// manifest predates them (or lacks a library), by probing it again, and
// rewrites its manifest.
func (s *Store) completeManifest(ctx context.Context, e *sandbox.Environment, libs []Library, log *slog.Logger) (*sandbox.Environment, error) {
	m := e.Manifest
	missing := false
	for _, l := range libs {
		if _, ok := m.Library(l.Name); !ok {
			missing = true
		}
	}
	if !missing {
		return e, nil
	}
	if err := probeLibraries(ctx, e.Root, libs, nil, &m, log); err != nil {
		return nil, err
	}
	if err := WriteManifest(filepath.Dir(e.Root), m); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	log.Info("recorded library details in the manifest", "env", e.Name)
	return s.Get(e.Name)
}

// probeLibraries reads libs inside root and records them in m: Libraries,
// Installed, Versions and Python. install are the apt targets, which say
// which packages came from another suite (PKG/experimental).
func probeLibraries(ctx context.Context, root string, libs []Library, install []string, m *sandbox.Manifest, log *slog.Logger) error {
	probe, err := probeEnvironment(ctx, root, libs, log)
	if err != nil {
		return err
	}
	m.Python = probe.Python
	m.Libraries, m.Installed = nil, nil
	m.Versions = map[string]string{}
	for _, l := range libs {
		r := probe.Libraries[l.Name]
		il := sandbox.InstalledLibrary{Name: l.Name, Packages: l.Packages, Dist: r.Dist, Imports: r.Imports,
			Import: r.Import, Version: r.Version, Error: r.Error}
		if il.Imports == nil {
			il.Imports = []string{}
		}
		il.Suite = targetSuite(l.Packages, install)
		m.Libraries = append(m.Libraries, l.Name)
		m.Installed = append(m.Installed, il)
		if r.Error != "" {
			log.Warn("library does not load; the environment keeps the others", "library", l.Name, "packages", strings.Join(l.Packages, ","), "why", r.Error)
			continue
		}
		if r.Source != "metadata" {
			log.Warn("library has no distribution metadata; recorded its __version__", "library", l.Name, "version", r.Version)
		}
		m.Versions[l.Name] = r.Version
	}
	return nil
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

// diskUsage returns the bytes of disk the tree at root occupies (like du -x:
// allocated blocks, hard links counted once, other file systems mounted
// below root not entered: a /proc left mounted in a build's target holds
// files that vanish or refuse to be read while the walk runs).
func diskUsage(root string) (int64, error) {
	var total int64
	seen := map[uint64]bool{}
	var rootDev uint64
	if fi, err := os.Stat(root); err != nil {
		return 0, err
	} else if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		rootDev = uint64(st.Dev)
	}
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
		if uint64(st.Dev) != rootDev {
			if fi.IsDir() {
				return fs.SkipDir
			}
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
	unlock, err := lockFile(ctx, filepath.Join(s.Dir, "."+name+".lock"), func() {
		log.Info("waiting for another build or removal of the same environment", "env", name)
	})
	if err != nil {
		return nil, fmt.Errorf("lock environment %s: %w", name, err)
	}
	return unlock, nil
}

// lockFile takes the exclusive lock on the file path (created if missing),
// calling waiting once if another process holds it, and returns its
// release function. It gives up when ctx ends.
func lockFile(ctx context.Context, path string, waiting func()) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	warned := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		if !warned {
			waiting()
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
