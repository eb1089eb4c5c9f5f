package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/private"
	"github.com/novelapi/novelapi/sandbox"
)

// AddConfig configures [Add]. Add never modifies it.
type AddConfig struct {
	// Home is the data directory ($NOVELAPI_HOME); required. The registry
	// of private libraries is Home/private.
	Home string
	// Store holds the environments; nil means debenv.OpenStore(Home).
	Store *debenv.Store
	// Path is the library: a source tree, a wheel, an sdist or an
	// installed tree (private.Open); Rev a git revision of a source tree
	// ("" reads the working tree). Required.
	Path, Rev string
	// OldPath and OldRev name an earlier version of the same library: its
	// novel APIs are then discovered by the diff of the two versions, as
	// between two Debian releases. Both "" serve the whole library (every
	// public API, novelty private); OldRev alone is a revision of Path.
	OldPath, OldRev string
	// Version and OldVersion are the versions of Path and of the old
	// version when they are source trees that declare their version
	// dynamic (private.OpenOptions.Version); "" finds them.
	Version, OldVersion string
	// Env names the base environment the layer goes over; the library's
	// Debian dependencies must be installed there. "" means an environment
	// of Suite built with exactly those dependencies.
	Env string
	// Suite is the Debian suite of the base when Env is ""; "" means
	// DefaultNewSuite (Debian's newest).
	Suite string
	// IndexDir is the served index the bundles go into; "" means
	// Home/index (where serve looks).
	IndexDir string
	// Runner runs Python in the sandbox; required.
	Runner sandbox.Runner
	// Workers bounds concurrent sandbox runs; 0 means the CPU count.
	Workers int
	// SkipTasks skips the task pool (Stages 3–4) built from the library's
	// executed examples.
	SkipTasks bool
	// Progress receives progress bars; nil means none.
	Progress io.Writer
	// Log receives stage messages; nil means slog.Default().
	Log *slog.Logger
}

// An AddResult is what [Add] did.
type AddResult struct {
	Library string `json:"library"`
	Dist    string `json:"dist"`
	Version string `json:"version"`
	// VersionFrom says where a version declared dynamic was found
	// (private.Source.VersionFrom); "" for a declared one.
	VersionFrom string `json:"version_from,omitempty"`
	OldVersion  string `json:"old_version,omitempty"`
	Source      string `json:"source"`
	Kind        string `json:"kind"`
	Env         string `json:"env"`
	Base        string `json:"base"`
	// Debian and Private list what the dependencies mapped to; Notes what
	// was approximate (a Debian version outside a specifier).
	Debian  []string `json:"debian,omitempty"`
	Private []string `json:"private,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Candidates is how many APIs discovery kept; Bundles how many bundles
	// were indexed, Executed how many of them have an executed example.
	Candidates int `json:"candidates"`
	Bundles    int `json:"bundles"`
	Executed   int `json:"executed"`
	// Generation is the index generation now live.
	Generation string `json:"generation"`
	IndexDir   string `json:"index"`
	// Tasks is the task pool built from the executed examples ("" when
	// skipped); TasksBuilt how many tasks it has, C1Passed how many pass C1.
	Tasks      string  `json:"tasks,omitempty"`
	TasksBuilt int     `json:"tasks_built"`
	C1Passed   int     `json:"c1_passed"`
	Seconds    float64 `json:"seconds"`
}

// Add makes a private library available (docs/private.md): it reads it
// (private.Open), maps its declared dependencies to private libraries
// added before or to Debian packages of the base's suite, layers it over
// the base environment (private.Layer), discovers its APIs there (the whole
// library, or the diff against OldPath), extracts their bundles, and adds
// them to the served index as one new generation, replacing the bundles an
// earlier add of the same library and version put there. Only then is it
// recorded in the registry. On any error the index and the registry are as
// they were: no half-added library is served. The result is returned with
// the error too, holding what was done before it (the library read, its
// base and layer when made), unless the library could not be read (nil).
func Add(ctx context.Context, cfg AddConfig) (*AddResult, error) {
	start := time.Now()
	log := cmp.Or(cfg.Log, slog.Default())
	if cfg.Home == "" || cfg.Path == "" || cfg.Runner == nil {
		return nil, errors.New("pipeline.Add: Home, Path and Runner are required")
	}
	src, err := private.Open(ctx, cfg.Path, private.OpenOptions{Rev: cfg.Rev, Version: cfg.Version})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	lib := private.LibraryName(src.Name)
	res := &AddResult{Library: lib, Dist: src.Name, Version: src.Version, VersionFrom: src.VersionFrom, Source: src.Label(), Kind: src.Kind,
		IndexDir: cmp.Or(cfg.IndexDir, filepath.Join(cfg.Home, "index"))}
	log.Info("add: read", "library", lib, "version", src.Version, "version_from", src.VersionFrom, "kind", src.Kind, "from", src.Declared, "imports", src.Imports)

	store := cfg.Store
	if store == nil {
		store = debenv.OpenStore(cfg.Home)
	}
	reg := private.OpenRegistry(filepath.Join(cfg.Home, "private"))
	latest, err := reg.Latest()
	if err != nil {
		return res, err
	}
	delete(latest, lib)

	var base *sandbox.Environment
	suite := cmp.Or(cfg.Suite, DefaultNewSuite)
	if cfg.Env != "" {
		if base, err = store.Get(cfg.Env); err != nil {
			return res, err
		}
		if base.Manifest.Base != "" {
			return res, fmt.Errorf("environment %s is itself a layer over %s: name a Debian environment", base.Name, base.Manifest.Base)
		}
		suite = base.Manifest.Suite
	}
	// The suite's package index (seconds to read) is needed to map
	// dependencies and to build a base, not otherwise.
	var indexes []*debenv.PackageIndex
	if len(src.Requires) > 0 || base == nil {
		for _, su := range packageSuites(suite) {
			ix, err := store.PackageIndex(ctx, su, debenv.IndexConfig{Log: log})
			if err != nil {
				return res, err
			}
			indexes = append(indexes, ix)
		}
	}
	plat := private.Platform{Machine: private.Machine()}
	if base != nil {
		plat.Python = base.Manifest.Python
	} else if p, ok := indexes[0].Package("python3"); ok {
		plat.Python = debianUpstream(p.Version)
	}

	deps, err := dependencies(src, plat, latest, indexes, reg)
	if err != nil {
		return res, err
	}
	defer deps.close()
	res.Debian, res.Private, res.Notes = deps.debian, deps.privateNames, deps.notes

	if base == nil {
		log.Info("add: building the base environment", "suite", suite, "debian", deps.debian)
		if base, err = store.Build(ctx, debenv.BuildConfig{Name: suite + "-private-" + lib, Suite: suite,
			Libraries: deps.debian, Progress: cfg.Progress, Log: log}); err != nil {
			return res, fmt.Errorf("base environment for %s: %w", lib, err)
		}
	} else if missing := missingPackages(base, deps.debian); len(missing) > 0 {
		return res, fmt.Errorf("%s needs %s, which environment %s lacks: add with --suite %s to build a base with them, or build one (novelapi env build --suite %s --libraries %s)",
			src.Name, strings.Join(missing, ", "), base.Name, suite, suite, strings.Join(append(slices.Clone(base.Manifest.Libraries), missing...), ","))
	}
	res.Base = base.Name

	layer := func(s *private.Source) (*sandbox.Environment, error) {
		return private.Layer(ctx, store, private.LayerConfig{Name: private.EnvName(lib, s.Version, base.Name), Base: base,
			Sources: append([]*private.Source{s}, deps.sources...), Log: log})
	}
	env, err := layer(src)
	if err != nil {
		return res, err
	}
	res.Env = env.Name
	var oldEnv *sandbox.Environment
	if cfg.OldPath != "" || cfg.OldRev != "" {
		old, err := private.Open(ctx, cmp.Or(cfg.OldPath, cfg.Path), private.OpenOptions{Rev: cfg.OldRev, Version: cfg.OldVersion})
		if err != nil {
			return res, err
		}
		defer old.Close()
		if private.LibraryName(old.Name) != lib {
			return res, fmt.Errorf("the old version is %s %s, not %s: diff two versions of one library", old.Name, old.Version, src.Name)
		}
		if old.Version == src.Version {
			return res, fmt.Errorf("both versions of %s are %s: a diff needs two versions", src.Name, src.Version)
		}
		if oldEnv, err = layer(old); err != nil {
			return res, fmt.Errorf("old version: %w", err)
		}
		res.OldVersion = old.Version
	}

	work := reg.WorkDir(lib, src.Version)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return res, err
	}
	docs, tests, err := projectMaterial(src)
	if err != nil {
		return res, err
	}
	if docs != nil || tests != nil {
		log.Info("add: the project's own documentation and tests", "library", lib, "pages", docs.Pages(),
			"release_notes", docs.Notes(), "test_modules", tests.Modules())
	}
	lr, err := bundles.BuildLibrary(ctx, cfg.Runner, bundles.LibraryConfig{
		Discover:   bundles.DiscoverConfig{Library: lib, Import: src.Import, Dist: src.Name, OldEnv: oldEnv, NewEnv: env, Logger: log},
		Candidates: filepath.Join(work, "candidates.jsonl"), Bundles: filepath.Join(work, "bundles.jsonl"),
		Workers: cfg.Workers, Progress: cfg.Progress, Docs: docs, Tests: tests})
	if err != nil {
		return res, err
	}
	res.Candidates = len(lr.Candidates)
	bs := lr.Bundles
	for i := range bs {
		b := &bs[i]
		if b.Provenance == nil {
			b.Provenance = &bundles.Provenance{Library: src.Import, Version: src.Version, Environment: env.Name}
		}
		b.Provenance.Source = src.Label()
		b.Provenance.Novelty = ""
		if oldEnv == nil {
			b.Provenance.Novelty = bundles.NoveltyPrivate
		}
		for _, e := range b.Examples {
			if e.Status == bundles.StatusExecuted {
				res.Executed++
				break
			}
		}
	}
	if err := bundles.WriteBundles(filepath.Join(work, "bundles.jsonl"), bs); err != nil {
		return res, err
	}
	if len(bs) == 0 {
		return res, fmt.Errorf("%s %s: no API was kept (discovery saw %d candidates): nothing to serve", src.Name, src.Version, len(lr.Candidates))
	}
	res.Bundles = len(bs)

	if !cfg.SkipTasks {
		if err := addTasks(ctx, cfg, store, env, oldEnv, bs, work, res, log); err != nil {
			return res, err
		}
	}

	version := src.Version
	m, err := index.Replace(ctx, res.IndexDir, func(b *bundles.Bundle) bool {
		return b.Private() && b.Library == lib && b.Provenance.Version == version
	}, bs, index.BuildConfig{Progress: cfg.Progress, Logger: log})
	if errors.Is(err, index.ErrNoIndex) {
		m, err = index.Build(ctx, res.IndexDir, bs, index.BuildConfig{Progress: cfg.Progress, Logger: log})
	}
	if err != nil {
		return res, fmt.Errorf("index %s: %w", lib, err)
	}
	res.Generation = m.Generation

	if err := private.Stage(src, reg.StageDir(lib, src.Version)); err != nil {
		return res, fmt.Errorf("keep a copy of %s: %w", lib, err)
	}
	entry := private.Entry{Library: lib, Dist: src.Name, Version: src.Version, Source: src.Label(), Kind: src.Kind,
		Env: env.Name, Base: base.Name, Imports: src.Imports, Import: src.Import, Debian: deps.debian,
		Private: deps.privatePins, Staged: reg.StageDir(lib, src.Version), OldVersion: res.OldVersion,
		Bundles: len(bs), Index: res.IndexDir, AddedAt: time.Now().UTC().Truncate(time.Second)}
	if err := reg.Update(func(es []private.Entry) ([]private.Entry, error) {
		es = slices.DeleteFunc(es, func(e private.Entry) bool { return e.Library == lib && e.Version == src.Version })
		return append(es, entry), nil
	}); err != nil {
		return res, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// projectMaterial reads what a source tree or sdist has beside its code
// for Stage 2 (docs/private.md §3): its docs/ folder, mined as a Debian
// -doc package is (pages named by the project's paths, the package the
// distribution's name), and its tests/ folder, mined before the installed
// test suite. Nil for what the project lacks, and for a wheel or an
// installed tree.
func projectMaterial(src *private.Source) (*bundles.Docs, *bundles.TestTree, error) {
	var docs *bundles.Docs
	if dir, label := src.Docs(); dir != "" {
		d, err := bundles.ReadDocs(dir, label, src.Name, src.Version)
		if err != nil {
			return nil, nil, fmt.Errorf("add %s: %w", src.Label(), err)
		}
		if d.Pages() > 0 || d.Notes() > 0 {
			docs = d
		}
	}
	var tests *bundles.TestTree
	if dir, label := src.Tests(); dir != "" {
		t, err := bundles.ReadTestTree(dir, label)
		if err != nil {
			return nil, nil, fmt.Errorf("add %s: %w", src.Label(), err)
		}
		tests = t
	}
	return docs, tests, nil
}

// addTasks builds the task pool of the library from its executed examples
// (Stage 3) and runs C1 on it (Stage 4), in the layered environment.
func addTasks(ctx context.Context, cfg AddConfig, store *debenv.Store, env, oldEnv *sandbox.Environment, bs []bundles.Bundle, work string, res *AddResult, log *slog.Logger) error {
	out := filepath.Join(work, "tasks", "tasks.jsonl")
	h, err := evalharness.New(evalharness.Config{Runner: cfg.Runner, Store: store, Log: log})
	if err != nil {
		return err
	}
	pr, err := construct.BuildPool(ctx, construct.PoolConfig{Out: out, BundlesPath: filepath.Join(work, "bundles.jsonl"), Log: log,
		Build: construct.BuildConfig{Bundles: bs, Env: env, OldEnv: oldEnv, Runner: cfg.Runner, Medium: true,
			Workers: cfg.Workers, Progress: cfg.Progress, Log: log, CheckPath: evalharness.CheckPath(out)},
		C1: &construct.C1Config{Harness: h, Workers: cfg.Workers, Progress: cfg.Progress, Log: log, TestCheck: true}})
	if err != nil {
		return fmt.Errorf("tasks of %s: %w", res.Library, err)
	}
	res.Tasks, res.TasksBuilt = out, len(pr.Tasks)
	if pr.C1 != nil {
		res.C1Passed = pr.C1.Passed
	}
	return nil
}

// depSet is what a library's dependencies map to.
type depSet struct {
	debian       []string          // Debian packages, its own and its private dependencies'
	sources      []*private.Source // private dependencies to layer, transitively
	privateNames []string          // "attrs 25.3.0"
	privatePins  []string          // "attrs==25.3.0"
	notes        []string
}

func (d *depSet) close() {
	for _, s := range d.sources {
		s.Close()
	}
}

// dependencies maps src's requirements and gathers its private
// dependencies' staged copies, with theirs, transitively.
func dependencies(src *private.Source, plat private.Platform, latest map[string]private.Entry, indexes []*debenv.PackageIndex, reg *private.Registry) (*depSet, error) {
	provided := map[string]string{}
	for name, e := range latest {
		provided[name] = e.Version
	}
	ds, err := private.MapDependencies(src, plat, provided, indexes...)
	if err != nil {
		return nil, err
	}
	out := &depSet{}
	seen := map[string]bool{}
	var addPrivate func(name string) error
	addPrivate = func(name string) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		e, ok := latest[name]
		if !ok {
			return fmt.Errorf("private library %s is not in the registry", name)
		}
		s, err := private.Open(context.Background(), e.Staged, private.OpenOptions{})
		if err != nil {
			return fmt.Errorf("private dependency %s %s (staged at %s): %w", name, e.Version, e.Staged, err)
		}
		out.sources = append(out.sources, s)
		out.privateNames = append(out.privateNames, e.Library+" "+e.Version)
		out.privatePins = append(out.privatePins, e.Library+"=="+e.Version)
		for _, p := range e.Debian {
			if !slices.Contains(out.debian, p) {
				out.debian = append(out.debian, p)
			}
		}
		for _, pin := range e.Private {
			dep, _, _ := strings.Cut(pin, "==")
			if err := addPrivate(dep); err != nil {
				return err
			}
		}
		return nil
	}
	for _, d := range ds {
		if d.Note != "" {
			out.notes = append(out.notes, d.Note)
		}
		if d.Private != "" {
			if err := addPrivate(d.Private); err != nil {
				out.close()
				return nil, err
			}
			continue
		}
		if !slices.Contains(out.debian, d.Package) {
			out.debian = append(out.debian, d.Package)
		}
	}
	return out, nil
}

// missingPackages returns the Debian packages of pkgs that env lacks.
func missingPackages(env *sandbox.Environment, pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		if _, ok := env.Manifest.Packages[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// packageSuites lists the Packages indexes a suite's names resolve in:
// experimental over sid.
func packageSuites(suite string) []string {
	if suite == "experimental" {
		return []string{"experimental", "sid"}
	}
	return []string{suite}
}

// debianUpstream strips a Debian version's epoch and revision ("3.13.5-1"
// → "3.13.5").
func debianUpstream(v string) string {
	if _, rest, ok := strings.Cut(v, ":"); ok {
		v = rest
	}
	if i := strings.LastIndexByte(v, '-'); i > 0 {
		v = v[:i]
	}
	return v
}

// RemoveConfig configures [Remove].
type RemoveConfig struct {
	Home  string        // required
	Store *debenv.Store // nil means debenv.OpenStore(Home)
	// Library is the private library's name; Version one of its versions
	// ("" removes every version).
	Library, Version string
	// IndexDir is the served index; "" means Home/index.
	IndexDir string
	// KeepEnvs keeps the layered environments.
	KeepEnvs bool
	Log      *slog.Logger
}

// A RemoveResult is what [Remove] did.
type RemoveResult struct {
	Library    string   `json:"library"`
	Versions   []string `json:"versions"`
	Bundles    int      `json:"bundles_removed"`
	Generation string   `json:"generation"`
	Envs       []string `json:"envs_removed,omitempty"`
}

// Remove takes a private library (one version, or all) out of the served
// index as one new generation (a running server answers from it on its
// next call), then out of the registry, then deletes its layered
// environments and staged copy. A library that another private library
// depends on is refused, naming the dependents.
func Remove(ctx context.Context, cfg RemoveConfig) (*RemoveResult, error) {
	log := cmp.Or(cfg.Log, slog.Default())
	reg := private.OpenRegistry(filepath.Join(cfg.Home, "private"))
	es, err := reg.Entries()
	if err != nil {
		return nil, err
	}
	lib := private.LibraryName(cfg.Library)
	var gone []private.Entry
	var names []string
	for _, e := range es {
		if !slices.Contains(names, e.Library) {
			names = append(names, e.Library)
		}
		if e.Library == lib && (cfg.Version == "" || e.Version == cfg.Version) {
			gone = append(gone, e)
		}
	}
	if len(gone) == 0 {
		have := "none"
		if len(names) > 0 {
			have = strings.Join(names, ", ")
		}
		what := lib
		if cfg.Version != "" {
			what += " " + cfg.Version
		}
		return nil, fmt.Errorf("no private library %s was added (added: %s)", what, have)
	}
	for _, e := range es {
		for _, pin := range e.Private {
			for _, g := range gone {
				if pin == g.Library+"=="+g.Version {
					return nil, fmt.Errorf("%s %s depends on %s %s: remove it first (novelapi rm %s)", e.Library, e.Version, g.Library, g.Version, e.Library)
				}
			}
		}
	}
	res := &RemoveResult{Library: lib}
	for _, g := range gone {
		res.Versions = append(res.Versions, g.Version)
	}
	dir := cmp.Or(cfg.IndexDir, filepath.Join(cfg.Home, "index"))
	before := 0
	m, err := index.Replace(ctx, dir, func(b *bundles.Bundle) bool {
		drop := b.Private() && b.Library == lib && (cfg.Version == "" || b.Provenance.Version == cfg.Version)
		if drop {
			before++
		}
		return drop
	}, nil, index.BuildConfig{Logger: log})
	if err != nil && !errors.Is(err, index.ErrNoIndex) {
		return nil, fmt.Errorf("remove %s from the index: %w", lib, err)
	}
	if m != nil {
		res.Generation = m.Generation
	}
	res.Bundles = before
	if err := reg.Update(func(es []private.Entry) ([]private.Entry, error) {
		return slices.DeleteFunc(es, func(e private.Entry) bool {
			return e.Library == lib && (cfg.Version == "" || e.Version == cfg.Version)
		}), nil
	}); err != nil {
		return nil, err
	}
	if !cfg.KeepEnvs {
		store := cfg.Store
		if store == nil {
			store = debenv.OpenStore(cfg.Home)
		}
		for _, g := range gone {
			if err := store.Remove(ctx, g.Env); err == nil {
				res.Envs = append(res.Envs, g.Env)
			} else if !errors.Is(err, debenv.ErrUnknownEnvironment) {
				log.Warn("could not remove a layered environment", "env", g.Env, "err", err)
			}
			os.RemoveAll(reg.WorkDir(lib, g.Version))
		}
		// The library's directory goes with its last version (Remove
		// fails on one that still holds something).
		os.Remove(filepath.Dir(reg.WorkDir(lib, gone[0].Version)))
	}
	return res, nil
}

// privateBundles returns the bundles of every private library in the
// registry under home, for an index rebuilt from scratch to keep them.
func privateBundles(home string) ([]bundles.Bundle, error) {
	reg := private.OpenRegistry(filepath.Join(home, "private"))
	es, err := reg.Entries()
	if err != nil {
		return nil, err
	}
	var out []bundles.Bundle
	for _, e := range es {
		bs, _, err := bundles.ReadBundles(filepath.Join(reg.WorkDir(e.Library, e.Version), "bundles.jsonl"), jsonl.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("private library %s %s: %w", e.Library, e.Version, err)
		}
		out = append(out, bs...)
	}
	return out, nil
}
