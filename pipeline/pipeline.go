// Package pipeline runs novelapi's whole job on one machine, from nothing to
// a served index: it builds the Debian environments, discovers novel APIs
// (Stage 1), extracts bundles (Stage 2), builds tasks and runs C1 (Stages
// 3–4), indexes the bundles and evaluates retrieval. Every stage writes its
// output under one work directory and is skipped when that output is
// already there, so a rerun reuses everything already built.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/stamp"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// Config configures Up. Zero fields select the defaults documented on each.
type Config struct {
	// Home is the data directory ($NOVELAPI_HOME); required.
	Home string
	// WorkDir holds the outputs; "" means Home, so that `novelapi serve`
	// finds the index at its default place (Home/index).
	WorkDir string
	// Libraries to process: catalogue names, Debian packages and presets
	// ("@wide", see debenv.ExpandLibraries); nil means DefaultLibraries.
	Libraries []string
	// OldSuite and NewSuite name the Debian suites diffed; "" means
	// DefaultOldSuite and DefaultNewSuite.
	OldSuite, NewSuite string
	// Runner executes Python in the sandbox; required.
	Runner sandbox.Runner
	// Workers bounds concurrent sandbox runs; 0 means the CPU count.
	Workers int
	// SkipTasks skips Stages 3–4 (tasks, call records, C1).
	SkipTasks bool
	// SkipC1 builds the tasks but skips their call records and the C1
	// filter, the longest stage (several sandbox runs per task); run it
	// later with `novelapi tasks build` on the same files.
	SkipC1 bool
	// NewIfMovedFrom lists old-version namespaces whose APIs do not make a
	// new API old (bundles.DiffOptions.NewIfMovedFrom, a novelapi extension
	// of the protocol's moved rule): "numpy.array_api" adds 8 numpy 2 APIs
	// (numpy.linalg.matrix_norm, vector_norm, vecdot, cross, outer, matmul,
	// tensordot, diagonal; docs/changelog.md) that the protocol drops
	// as moved from numpy 1's experimental array-API module (numpy.concat
	// and permute_dims stay out: they are the same objects as concatenate
	// and transpose). Nil means the protocol's rule. Each
	// library gets the prefixes under its own name; a library whose
	// prefixes changed since its candidates were written is discovered and
	// extracted again.
	NewIfMovedFrom []string
	// ProtocolOnly keeps only the APIs the published protocol lists: no
	// methods of classes and no APIs without Python source
	// (bundles.DiffOptions.ProtocolOnly); the outputs are then those the
	// protocol's rules give.
	ProtocolOnly bool
	// Progress receives progress bars (stderr in the CLI); nil means none.
	Progress io.Writer
	// Log receives stage messages; nil means slog.Default().
	Log *slog.Logger
	// IndexReady, when set, is called once with the index directory as soon
	// as the index serves the first library's bundles, so that the caller
	// can start serving it while Up goes on (docs/serving.md §7). It must
	// not block. Up then makes each further library's bundles live in the
	// same directory as its extraction completes, and at last the index of
	// every library, each as a new generation that a server following the
	// directory picks up (index.Live, docs/serving.md §3). Unset, Up builds
	// the index once, after the last library.
	IndexReady func(dir string)
}

// DefaultLibraries are the libraries of the default run.
var DefaultLibraries = []string{"numpy", "scipy", "pandas"}

// The suites of the default run: the newest span Debian has, so that what
// is served is what current models have not seen. bookworm → trixie (the
// span of the figures in docs/retrieval.md) is one flag away.
const (
	DefaultOldSuite = "trixie"
	DefaultNewSuite = "sid"
)

// Paths are the files Up writes under the work directory.
type Paths struct {
	WorkDir    string `json:"work_dir"`
	Candidates string `json:"candidates"` // directory: one LIB.jsonl per library
	Bundles    string `json:"bundles"`    // all libraries' bundles
	Tasks      string `json:"tasks"`      // tasks.jsonl; expected_calls.jsonl, filters/, instances/ beside it
	Index      string `json:"index"`
	Retrieval  string `json:"retrieval"` // retrieval evaluation report (JSON)
	Summary    string `json:"summary"`
}

// PathsFor returns the output paths under workDir.
func PathsFor(workDir string) Paths {
	return Paths{
		WorkDir:    workDir,
		Candidates: filepath.Join(workDir, "candidates"),
		Bundles:    filepath.Join(workDir, "bundles.jsonl"),
		Tasks:      filepath.Join(workDir, "tasks", "tasks.jsonl"),
		Index:      filepath.Join(workDir, "index"),
		Retrieval:  filepath.Join(workDir, "retrieval.json"),
		Summary:    filepath.Join(workDir, "summary.json"),
	}
}

// LibrarySummary holds the figures of one library.
type LibrarySummary struct {
	OldVersion string `json:"old_version"`
	NewVersion string `json:"new_version"`
	New        int    `json:"new"`
	Modified   int    `json:"modified"`
	// Compiled counts the candidates without Python source (served
	// without C; bundles.ExtensionNoSource), among New and Modified.
	Compiled int `json:"compiled"`
	Bundles  int `json:"bundles"`
	Executed int `json:"bundles_with_executed_example"`
	Tasks    int `json:"tasks"`
	C1Passed int `json:"c1_passed"`
	// Skipped says why the library was left out ("" when it was not):
	// which suite lacks it and why, or what failed.
	Skipped string `json:"skipped,omitempty"`
}

// Summary is what Up prints and writes to Paths.Summary.
type Summary struct {
	Paths     Paths                      `json:"paths"`
	Envs      map[string]string          `json:"environments"` // suite → environment name
	Libraries map[string]*LibrarySummary `json:"libraries"`
	// LeftOut maps each library that went through no further stage to
	// why (its LibrarySummary.Skipped); nil when every library went on.
	LeftOut   map[string]string `json:"left_out,omitempty"`
	Retrieval []index.EvalRow   `json:"retrieval,omitempty"` // all-library rows per retriever
	Stages    map[string]string `json:"stages"`              // stage → "built" or "reused"
	Seconds   float64           `json:"seconds"`
}

// Up runs every stage whose output is missing or stale and returns the
// figures. It stops at the first failing stage with an error naming it; what
// the earlier stages wrote stays and is reused by the next run. Each stage
// decides reuse by the stamp beside its output (package internal/stamp).
//
// A library that cannot go on is left out and the others go on through
// every stage: one that a suite has no package for (or whose package is
// not a Python 3 library), one that does not load in an environment, one
// whose discovery or extraction failed. Summary.LeftOut says which and
// why; only when no library is left is it an error.
func Up(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	if cfg.Home == "" || cfg.Runner == nil {
		return nil, errors.New("pipeline: Home and Runner are required")
	}
	cfg = cfg.withDefaults()
	libs, err := debenv.ExpandLibraries(cfg.Libraries)
	if err != nil {
		return nil, err
	}
	cfg.Libraries = libs
	r := &run{cfg: cfg, log: cfg.Log, p: PathsFor(cfg.WorkDir), libs: libs}
	r.sum = &Summary{Paths: r.p, Envs: map[string]string{}, Libraries: map[string]*LibrarySummary{}, Stages: map[string]string{}}
	for _, lib := range cfg.Libraries {
		r.sum.Libraries[lib] = &LibrarySummary{}
	}
	for _, stage := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"environment", r.environments},
		{"discover/extract", r.libraries},
		{"index", r.index},
		{"serve", func(context.Context) error { r.announce(); return nil }},
		{"tasks", r.buildPool},
		{"retrieval", r.retrieval},
	} {
		if err := stage.run(ctx); err != nil {
			return r.sum, fmt.Errorf("stage %s: %w", stage.name, err)
		}
	}
	r.sum.Seconds = time.Since(start).Seconds()
	return r.sum, atomicfile.WriteJSON(r.p.Summary, r.sum)
}

// withDefaults returns cfg with every zero field that has a default set.
func (cfg Config) withDefaults() Config {
	if cfg.WorkDir == "" {
		cfg.WorkDir = cfg.Home
	}
	if cfg.Libraries == nil {
		cfg.Libraries = DefaultLibraries
	}
	if cfg.OldSuite == "" {
		cfg.OldSuite = DefaultOldSuite
	}
	if cfg.NewSuite == "" {
		cfg.NewSuite = DefaultNewSuite
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return cfg
}

// run is the state of one [Up]: what each stage passes to the next.
type run struct {
	cfg            Config
	log            *slog.Logger
	p              Paths
	sum            *Summary
	libs           []string // the libraries not left out so far, in request order
	store          *debenv.Store
	oldEnv, newEnv *sandbox.Environment
	bundles        []bundles.Bundle
	pool           []*pool.Task
	announced      bool // IndexReady was called
}

// leaveOut records that lib goes through no further stage, and why.
func (r *run) leaveOut(lib, why string) {
	r.sum.Libraries[lib].Skipped = why
	if r.sum.LeftOut == nil {
		r.sum.LeftOut = map[string]string{}
	}
	r.sum.LeftOut[lib] = why
	r.libs = slices.DeleteFunc(r.libs, func(l string) bool { return l == lib })
	r.log.Warn("library left out; going on with the others", "library", lib, "why", why)
}

// environments builds (or reuses) the old and new suites' environments,
// with the libraries that both suites have: one that a suite has no
// package for is left out first, from the suites' Packages indexes.
// The environments are named after the libraries they hold (envSuffix).
func (r *run) environments(ctx context.Context) error {
	r.store = debenv.OpenStore(r.cfg.Home)
	suites := []string{r.cfg.OldSuite, r.cfg.NewSuite}
	if r.cfg.OldSuite == r.cfg.NewSuite {
		suites = suites[:1]
	}
	res, err := r.store.Resolve(ctx, suites, r.libs, debenv.IndexConfig{Log: r.log})
	if err != nil {
		return err
	}
	for _, x := range res {
		var whys []string
		for _, su := range suites {
			if e, ok := x.Errors[su]; ok {
				whys = append(whys, e)
			}
		}
		if len(whys) > 0 {
			r.leaveOut(x.Library, strings.Join(whys, "; "))
		}
	}
	if len(r.libs) == 0 {
		return fmt.Errorf("no library is in both Debian %s and %s: %s", r.cfg.OldSuite, r.cfg.NewSuite, leftOutList(r.sum.LeftOut))
	}
	envs := map[string]*sandbox.Environment{}
	for _, suite := range suites {
		name := suite + "-" + envSuffix(r.libs)
		r.log.Info("stage: environment", "suite", suite, "name", name)
		env, err := r.store.Build(ctx, debenv.BuildConfig{Name: name, Suite: suite, Libraries: r.libs, Progress: r.cfg.Progress, Log: r.log})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		envs[suite] = env
		r.sum.Envs[suite] = name
	}
	r.oldEnv, r.newEnv = envs[r.cfg.OldSuite], envs[r.cfg.NewSuite]
	return nil
}

// libraries runs Stages 1 and 2 per library and writes all bundles to one
// file (rewritten only when its records change). When the index is to be
// served (Config.IndexReady), each library but the last is served as soon
// as its bundles exist (serveSoFar).
func (r *run) libraries(ctx context.Context) error {
	done := 0
	for _, lib := range slices.Clone(r.libs) {
		ls := r.sum.Libraries[lib]
		ls.OldVersion, ls.NewVersion = r.oldEnv.Manifest.Versions[lib], r.newEnv.Manifest.Versions[lib]
		if why := unusable(lib, r.oldEnv, r.newEnv); why != "" {
			r.leaveOut(lib, why)
			continue
		}
		installed, _ := r.newEnv.Manifest.Library(lib)
		docs, err := bundles.LibraryDocs(ctx, r.store, r.newEnv, lib, debenv.IndexConfig{Log: r.log})
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			r.log.Warn("extracting without (some of) the library's documentation", "library", lib, "err", err)
		}
		if docs != nil {
			r.log.Info("documentation", "library", lib, "packages", docs.Key(), "pages", docs.Pages(), "release_notes", docs.Notes())
		}
		res, err := bundles.BuildLibrary(ctx, r.cfg.Runner, bundles.LibraryConfig{
			Discover: bundles.DiscoverConfig{Library: lib, Import: installed.Import, Dist: installed.Dist,
				OldEnv: r.oldEnv, NewEnv: r.newEnv, Logger: r.log,
				Diff: bundles.DiffOptions{NewIfMovedFrom: prefixesOf(lib, r.cfg.NewIfMovedFrom), ProtocolOnly: r.cfg.ProtocolOnly}},
			Candidates: filepath.Join(r.p.Candidates, lib+".jsonl"),
			Bundles:    filepath.Join(r.cfg.WorkDir, "bundles", lib+".jsonl"),
			Workers:    r.cfg.Workers, Progress: r.cfg.Progress, Docs: docs,
		})
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			// One library's failure does not stop the others; a rerun
			// resumes it where its stamps say.
			r.leaveOut(lib, err.Error())
			continue
		}
		done++
		mark(r.sum.Stages, "discover "+lib, res.Discovered != "")
		mark(r.sum.Stages, "extract "+lib, res.Extract.Attempted > 0)
		for _, c := range res.Candidates {
			if c.IsModified {
				ls.Modified++
			} else {
				ls.New++
			}
			if c.Extra.Extension == bundles.ExtensionNoSource {
				ls.Compiled++
			}
		}
		ls.Bundles = len(res.Bundles)
		for i := range res.Bundles {
			if hasExecuted(&res.Bundles[i]) {
				ls.Executed++
			}
		}
		r.bundles = append(r.bundles, res.Bundles...)
		if rest := r.libs[slices.Index(r.libs, lib)+1:]; r.cfg.IndexReady != nil && len(rest) > 0 {
			if err := r.serveSoFar(ctx, lib, res, rest); err != nil {
				if ctx.Err() != nil {
					return err
				}
				// Serving early is a head start: the index stage still
				// builds the whole index, and reports its own errors.
				r.log.Warn("could not serve the libraries extracted so far; the index is built after the last one", "library", lib, "err", err)
			}
		}
	}
	if done == 0 {
		return fmt.Errorf("no library could be processed: %s", leftOutList(r.sum.LeftOut))
	}
	return writeIfChanged(r.p.Bundles, r.bundles)
}

// serveSoFar makes the index serve lib's bundles, res.Bundles, while the
// libraries of rest are still to be extracted, and announces it the first
// time (docs/serving.md §7). With no index yet it indexes every bundle so
// far and the private libraries'; otherwise the live generation gets lib's
// bundles in place of those it has (as novelapi add does), unless lib was
// reused whole and the live generation already holds as many of its
// bundles. Each is a partial generation: the index stage then builds the
// whole index again.
func (r *run) serveSoFar(ctx context.Context, lib string, res *bundles.LibraryResult, rest []string) error {
	m, err := index.LiveManifest(r.p.Index)
	bs, build := res.Bundles, true
	switch reused := res.Discovered == "" && res.Extract.Attempted == 0; {
	case errors.Is(err, index.ErrNoIndex):
		priv, err := privateBundles(r.cfg.Home)
		if err != nil {
			return err
		}
		if bs = append(slices.Clone(r.bundles), priv...); len(bs) == 0 {
			return nil // nothing to serve yet
		}
	case err != nil:
		return err
	case reused && m.Libraries[lib] == len(res.Bundles):
		build = false
	}
	if build {
		if m, err = index.UpdatePartial(ctx, r.p.Index, func(b *bundles.Bundle) bool { return b.Library == lib && !b.Private() },
			bs, index.BuildConfig{Progress: r.cfg.Progress, Logger: r.log}); err != nil {
			return err
		}
		mark(r.sum.Stages, "index "+lib, true)
	}
	r.log.Info("serving while extracting", "generation", m.Generation, "served", slices.Sorted(maps.Keys(m.Libraries)), "extracting", rest)
	r.announce()
	return nil
}

// leftOutList lists the libraries of leftOut with why, sorted.
func leftOutList(leftOut map[string]string) string {
	var parts []string
	for _, lib := range slices.Sorted(maps.Keys(leftOut)) {
		parts = append(parts, lib+": "+leftOut[lib])
	}
	return strings.Join(parts, "; ")
}

// unusable says why lib cannot be diffed between the two environments (it
// does not load in one of them), "" when it can.
func unusable(lib string, envs ...*sandbox.Environment) string {
	for _, e := range envs {
		if l, ok := e.Manifest.Library(lib); ok && l.Error != "" {
			return fmt.Sprintf("does not load in %s (%s): %s", e.Name, e.Manifest.Suite, l.Error)
		}
	}
	return ""
}

// buildPool runs Stages 3 and 4 (tasks, call records, C1) unless skipped.
func (r *run) buildPool(ctx context.Context) error {
	if r.cfg.SkipTasks {
		return nil
	}
	pcfg := construct.PoolConfig{Out: r.p.Tasks, BundlesPath: r.p.Bundles, Log: r.log, ProtocolOnly: r.cfg.ProtocolOnly,
		// The old environment decides exercises_change (construct.BuildConfig.OldEnv).
		Build: construct.BuildConfig{Bundles: r.bundles, Env: r.newEnv, OldEnv: r.oldEnv, Runner: r.cfg.Runner, Medium: true,
			Workers: r.cfg.Workers, Progress: r.cfg.Progress, Log: r.log, CheckPath: evalharness.CheckPath(r.p.Tasks)}}
	if !r.cfg.SkipC1 {
		h, err := evalharness.New(evalharness.Config{Runner: r.cfg.Runner, Store: r.store, Log: r.log})
		if err != nil {
			return err
		}
		pcfg.C1 = &construct.C1Config{Harness: h, Workers: r.cfg.Workers, Progress: r.cfg.Progress, Log: r.log, TestCheck: true}
	}
	res, err := construct.BuildPool(ctx, pcfg)
	if err != nil {
		return err
	}
	mark(r.sum.Stages, "tasks", res.Why != "")
	if !res.Build.Reused {
		b := res.Build
		r.log.Info("tasks built", "tasks", b.Tasks, "by_difficulty", b.ByDifficulty, "example_checked", b.ExampleChecked, "in_place", b.InPlace, "modified", b.ModifiedTasks,
			"exercising", b.ExercisingTasks, "static_exercising", b.StaticExercising, "old_env_check", b.OldEnvCheck)
	}
	r.pool = res.Tasks
	for _, t := range r.pool {
		if ls, ok := r.sum.Libraries[t.Library]; ok {
			ls.Tasks++
		}
	}
	if res.C1 != nil {
		for lib, n := range res.C1.ByLibrary {
			if ls, ok := r.sum.Libraries[lib]; ok {
				ls.C1Passed = n
			}
		}
	}
	return nil
}

// announce hands the index to Config.IndexReady the first time it is
// called.
func (r *run) announce() {
	if r.cfg.IndexReady != nil && !r.announced {
		r.announced = true
		r.cfg.IndexReady(r.p.Index)
	}
}

// index builds the index from all bundles unless it is current. A
// rebuild keeps the private libraries added with novelapi add
// (docs/private.md §4).
func (r *run) index(ctx context.Context) error {
	priv, err := privateBundles(r.cfg.Home)
	if err != nil {
		return err
	}
	why, err := index.Update(ctx, r.p.Index, r.p.Bundles, append(slices.Clone(r.bundles), priv...), index.BuildConfig{Progress: r.cfg.Progress, Logger: r.log})
	if why != "" {
		r.log.Info("stage: index build", "bundles", len(r.bundles), "why", why)
	}
	mark(r.sum.Stages, "index", why != "")
	if err == nil && r.announced {
		r.log.Info("serving every library", "libraries", r.libs)
	}
	return err
}

// retrieval evaluates retrieval over the tasks' queries (description +
// context, docs/protocol.md §6): hybrid and the paper baseline under the
// four conditions of its shared-hit statistic, each over the task's domain.
func (r *run) retrieval(ctx context.Context) error {
	if len(r.pool) == 0 {
		return nil
	}
	gen, err := index.Generation(r.p.Index)
	if err != nil {
		return err
	}
	want, err := stamp.New("retrieval", index.RankingVersion, nil)
	if err != nil {
		return err
	}
	if want, err = want.WithInput("index", gen).WithFile("tasks", r.p.Tasks); err != nil {
		return err
	}
	var saved index.EvalReport
	if stamp.Stale(r.p.Retrieval, want) == "" && readJSONFile(r.p.Retrieval, &saved) == nil {
		mark(r.sum.Stages, "retrieval", false)
		r.sum.Retrieval = overallRows(saved)
		return nil
	}
	mark(r.sum.Stages, "retrieval", true)
	ix, err := index.Open(r.p.Index, index.OpenOptions{})
	if err != nil {
		return err
	}
	var qs []index.EvalQuery
	for _, t := range r.pool {
		qs = append(qs, index.EvalQuery{TaskID: t.TaskID, Query: t.Description + "\n" + t.ContextCode, APIName: t.APIName, Library: t.Library, Domain: t.Domain})
	}
	rep, err := index.Evaluate(ctx, ix, qs, index.EvalConfig{Conditions: index.SharedHitConditions})
	ix.Close()
	if err != nil {
		return err
	}
	r.sum.Retrieval = overallRows(*rep)
	if err := atomicfile.WriteJSON(r.p.Retrieval, rep); err != nil {
		return err
	}
	return stamp.Write(r.p.Retrieval, want)
}

// envSuffix names the environments of a library set: "sci" for numpy,
// scipy and pandas (the names the tests and CI use: bookworm-sci,
// trixie-sci), a preset's name when the set is exactly that preset, the
// libraries joined by "-" when there are at most four, else "libs-" and a
// short hash of the set.
func envSuffix(libs []string) string {
	if slices.Equal(libs, DefaultLibraries) {
		return "sci"
	}
	for _, name := range debenv.Presets() {
		if p, _ := debenv.Preset(name); slices.Equal(p, libs) {
			return name
		}
	}
	if len(libs) <= 4 {
		return strings.ToLower(strings.Join(libs, "-"))
	}
	h := sha256.Sum256([]byte(strings.Join(libs, "\x00")))
	return "libs-" + hex.EncodeToString(h[:4])
}

func hasExecuted(b *bundles.Bundle) bool {
	for _, e := range b.Examples {
		if e.Status == "executed" {
			return true
		}
	}
	return false
}

func mark(stages map[string]string, name string, built bool) {
	if built {
		stages[name] = "built"
	} else {
		stages[name] = "reused"
	}
}

// prefixesOf returns the namespaces of prefixes that lie in library lib
// (its name or below it), sorted.
func prefixesOf(lib string, prefixes []string) []string {
	top := strings.ToLower(lib)
	var out []string
	for _, p := range prefixes {
		if p == top || strings.HasPrefix(p, top+".") {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// overallRows returns the all-library rows of rep, best hit@5 first.
func overallRows(rep index.EvalReport) []index.EvalRow {
	var rows []index.EvalRow
	for _, r := range rep.Rows {
		if r.Library == "" {
			rows = append(rows, r)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].HitAt5 > rows[j].HitAt5 })
	return rows
}
