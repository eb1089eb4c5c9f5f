// Package pipeline runs novelapi's whole job on one machine, from nothing to
// a served index: it builds the Debian environments, discovers novel APIs
// (Stage 1), extracts bundles (Stage 2), builds tasks and runs C1 (Stages
// 3–4), indexes the bundles and evaluates retrieval. Every stage writes its
// output under one work directory and is skipped when that output is
// already there, so a rerun reuses everything already built.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
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
	"github.com/novelapi/novelapi/internal/jsonl"
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
	// Libraries to process; nil means DefaultLibraries.
	Libraries []string
	// OldSuite and NewSuite name the Debian suites diffed; "" means
	// bookworm (releases before the 2023-12-01 boundary) and trixie.
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
	// Progress receives progress bars (stderr in the CLI); nil means none.
	Progress io.Writer
	// Log receives stage messages; nil means slog.Default().
	Log *slog.Logger
}

// DefaultLibraries are the libraries of the default run.
var DefaultLibraries = []string{"numpy", "scipy", "pandas"}

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
	Bundles    int    `json:"bundles"`
	Executed   int    `json:"bundles_with_executed_example"`
	Tasks      int    `json:"tasks"`
	C1Passed   int    `json:"c1_passed"`
}

// Summary is what Up prints and writes to Paths.Summary.
type Summary struct {
	Paths     Paths                      `json:"paths"`
	Envs      map[string]string          `json:"environments"` // suite → environment name
	Libraries map[string]*LibrarySummary `json:"libraries"`
	Retrieval []index.EvalRow            `json:"retrieval,omitempty"` // all-library rows per retriever
	Stages    map[string]string          `json:"stages"`              // stage → "built" or "reused"
	Seconds   float64                    `json:"seconds"`
}

// Up runs every stage whose output is missing and returns the figures.
// It stops at the first failing stage with an error naming it; what the
// earlier stages wrote stays and is reused by the next run.
func Up(ctx context.Context, cfg Config) (*Summary, error) {
	start := time.Now()
	if cfg.Home == "" || cfg.Runner == nil {
		return nil, errors.New("pipeline: Home and Runner are required")
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = cfg.Home
	}
	if cfg.Libraries == nil {
		cfg.Libraries = DefaultLibraries
	}
	if cfg.OldSuite == "" {
		cfg.OldSuite = "bookworm"
	}
	if cfg.NewSuite == "" {
		cfg.NewSuite = "trixie"
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	p := PathsFor(cfg.WorkDir)
	for _, d := range []string{p.Candidates, filepath.Dir(p.Tasks)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	sum := &Summary{Paths: p, Envs: map[string]string{}, Libraries: map[string]*LibrarySummary{}, Stages: map[string]string{}}
	for _, lib := range cfg.Libraries {
		sum.Libraries[lib] = &LibrarySummary{}
	}

	// Environments.
	store := debenv.OpenStore(cfg.Home)
	envs := map[string]*sandbox.Environment{}
	for _, suite := range []string{cfg.OldSuite, cfg.NewSuite} {
		name := suite + "-" + envSuffix(cfg.Libraries)
		log.Info("stage: environment", "suite", suite, "name", name)
		env, err := store.Build(ctx, debenv.BuildConfig{Name: name, Suite: suite, Libraries: cfg.Libraries, Progress: cfg.Progress, Log: log})
		if err != nil {
			return sum, fmt.Errorf("stage environment %s: %w", name, err)
		}
		envs[suite] = env
		sum.Envs[suite] = name
	}
	oldEnv, newEnv := envs[cfg.OldSuite], envs[cfg.NewSuite]

	// Stage 1 and 2 per library.
	var all []bundles.Bundle
	for _, lib := range cfg.Libraries {
		ls := sum.Libraries[lib]
		ls.OldVersion, ls.NewVersion = oldEnv.Manifest.Versions[lib], newEnv.Manifest.Versions[lib]
		candPath := filepath.Join(p.Candidates, lib+".jsonl")
		bundlePath := filepath.Join(cfg.WorkDir, "bundles", lib+".jsonl")
		dopts := stageOptions{Rules: bundles.DiffRules, ExtractRules: bundles.ExtractRules, NewIfMovedFrom: prefixesOf(lib, cfg.NewIfMovedFrom)}
		readPath := candPath
		// Extraction appends to the bundles file, so when the candidates
		// or the extraction rules change, the bundles go.
		removeBundles := func() error {
			for _, f := range []string{bundlePath, bundlePath + ".dropped.jsonl"} {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					return err
				}
			}
			return nil
		}
		rediscover, reextract := dopts.differences(candPath)
		if rediscover != "" {
			log.Info("discovering again", "library", lib, "why", rediscover)
			readPath = ""
			if err := removeBundles(); err != nil {
				return sum, err
			}
		} else if reextract != "" {
			log.Info("extracting again", "library", lib, "why", reextract)
			if err := removeBundles(); err != nil {
				return sum, err
			}
			if err := dopts.write(candPath); err != nil {
				return sum, err
			}
		}
		cands, err := readOr(readPath, func() ([]bundles.Candidate, error) {
			log.Info("stage: discover", "library", lib)
			cs, ds, err := bundles.Discover(ctx, cfg.Runner, bundles.DiscoverConfig{Library: lib, OldEnv: oldEnv, NewEnv: newEnv, Logger: log,
				Diff: bundles.DiffOptions{NewIfMovedFrom: dopts.NewIfMovedFrom}})
			if err != nil {
				return nil, err
			}
			log.Info("discovered", "library", lib, "new", ds.New, "modified", ds.Modified, "seen", ds.Seen)
			if err := bundles.WriteCandidates(candPath, cs); err != nil {
				return nil, err
			}
			return cs, dopts.write(candPath)
		}, func(path string) ([]bundles.Candidate, error) {
			cs, _, err := bundles.ReadCandidates(path, jsonl.ReadOptions{})
			return cs, err
		}, sum.Stages, "discover "+lib)
		if err != nil {
			return sum, fmt.Errorf("stage discover %s: %w", lib, err)
		}
		for _, c := range cands {
			if c.IsModified {
				ls.Modified++
			} else {
				ls.New++
			}
		}
		if err := os.MkdirAll(filepath.Dir(bundlePath), 0o755); err != nil {
			return sum, err
		}
		log.Info("stage: extract", "library", lib, "candidates", len(cands))
		_, es, err := bundles.Extract(ctx, cfg.Runner, bundles.ExtractConfig{Env: newEnv, Candidates: cands, Out: bundlePath, Workers: cfg.Workers, Progress: cfg.Progress, Logger: log})
		if err != nil {
			return sum, fmt.Errorf("stage extract %s: %w", lib, err)
		}
		mark(sum.Stages, "extract "+lib, es.Attempted > 0)
		bs, _, err := bundles.ReadBundles(bundlePath, jsonl.ReadOptions{})
		if err != nil {
			return sum, fmt.Errorf("stage extract %s: %w", lib, err)
		}
		ls.Bundles = len(bs)
		for i := range bs {
			if hasExecuted(&bs[i]) {
				ls.Executed++
			}
		}
		all = append(all, bs...)
	}
	if err := writeIfChanged(p.Bundles, all); err != nil {
		return sum, err
	}

	// Stages 3 and 4.
	var tasks []*pool.Task
	if !cfg.SkipTasks {
		var err error
		// The old environment decides exercises_change (construct.BuildConfig.OldEnv):
		// on numpy it added 32 s to a 13 s build (78 modified-API tasks).
		bcfg := construct.BuildConfig{Bundles: all, Env: newEnv, OldEnv: oldEnv, Runner: cfg.Runner, Medium: true, Workers: cfg.Workers, Progress: cfg.Progress, Log: log,
			CheckPath: evalharness.CheckPath(p.Tasks)}
		opts := bcfg.PoolOptions()
		tasksPath := p.Tasks
		why := construct.OptionsDiffer(p.Tasks, opts)
		if why == "" && !Fresh(p.Tasks, p.Bundles) {
			why = "the bundles changed"
		}
		if why != "" {
			if _, err := os.Stat(p.Tasks); err == nil {
				log.Info("rebuilding tasks", "file", p.Tasks, "why", why)
			}
			tasksPath = "" // readOr builds
		}
		tasks, err = readOr(tasksPath, func() ([]*pool.Task, error) {
			log.Info("stage: tasks build", "bundles", len(all))
			ts, bsum, err := construct.BuildTasks(ctx, bcfg)
			if err != nil {
				return nil, err
			}
			log.Info("tasks built", "tasks", bsum.Tasks, "by_difficulty", bsum.ByDifficulty, "modified", bsum.ModifiedTasks,
				"exercising", bsum.ExercisingTasks, "static_exercising", bsum.StaticExercising, "old_env_check", bsum.OldEnvCheck)
			if err := pool.WriteTasks(p.Tasks, ts); err != nil {
				return nil, err
			}
			return ts, construct.WriteOptions(p.Tasks, opts)
		}, func(path string) ([]*pool.Task, error) {
			return pool.LoadTasks(path, pool.LoadOptions{})
		}, sum.Stages, "tasks")
		if err != nil {
			return sum, fmt.Errorf("stage tasks: %w", err)
		}
		for _, t := range tasks {
			if ls, ok := sum.Libraries[t.Library]; ok {
				ls.Tasks++
			}
		}
	}
	if !cfg.SkipTasks && !cfg.SkipC1 {
		h, err := evalharness.New(evalharness.Config{Runner: cfg.Runner, Store: store, Log: log})
		if err != nil {
			return sum, err
		}
		log.Info("stage: call records + C1", "tasks", len(tasks))
		c1, err := construct.RecordAndFilterC1(ctx, tasks, construct.C1Config{Harness: h, Dir: filepath.Dir(p.Tasks), Workers: cfg.Workers, Progress: cfg.Progress, Log: log, TestCheck: true})
		if err != nil {
			return sum, fmt.Errorf("stage C1: %w", err)
		}
		for lib, n := range c1.ByLibrary {
			if ls, ok := sum.Libraries[lib]; ok {
				ls.C1Passed = n
			}
		}
	}

	// Index.
	// CURRENT names the live generation; an index built with an older
	// default embedder or older unit rules is rebuilt.
	if current, _ := index.BuiltCurrent(p.Index); current && Fresh(filepath.Join(p.Index, "CURRENT"), p.Bundles) {
		mark(sum.Stages, "index", false)
	} else {
		log.Info("stage: index build", "bundles", len(all))
		if _, err := index.Build(ctx, p.Index, all, index.BuildConfig{Progress: cfg.Progress, Logger: log}); err != nil {
			return sum, fmt.Errorf("stage index: %w", err)
		}
		mark(sum.Stages, "index", true)
	}

	// Retrieval evaluation over the tasks' queries (description + context, docs/protocol.md §6).
	var saved index.EvalReport
	if len(tasks) > 0 && Fresh(p.Retrieval, filepath.Join(p.Index, "CURRENT")) && Fresh(p.Retrieval, p.Tasks) &&
		readJSONFile(p.Retrieval, &saved) == nil && saved.Ranking == index.RankingVersion && hasSharedRow(saved) {
		mark(sum.Stages, "retrieval", false)
		sum.Retrieval = overallRows(saved)
	} else if len(tasks) > 0 {
		mark(sum.Stages, "retrieval", true)
		ix, err := index.Open(p.Index, index.OpenOptions{})
		if err != nil {
			return sum, fmt.Errorf("stage retrieval: %w", err)
		}
		var qs []index.EvalQuery
		for _, t := range tasks {
			qs = append(qs, index.EvalQuery{TaskID: t.TaskID, Query: t.Description + "\n" + t.ContextCode, APIName: t.APIName, Library: t.Library, Domain: t.Domain})
		}
		// The paper baseline under the four conditions of its shared-hit
		// statistic, each over the task's domain as in the protocol (docs/protocol.md §6).
		rep, err := index.Evaluate(ctx, ix, qs, index.EvalConfig{Conditions: index.SharedHitConditions})
		ix.Close()
		if err != nil {
			return sum, fmt.Errorf("stage retrieval: %w", err)
		}
		sum.Retrieval = overallRows(*rep)
		if err := atomicfile.WriteJSON(p.Retrieval, rep); err != nil {
			return sum, err
		}
	}
	sum.Seconds = time.Since(start).Seconds()
	return sum, atomicfile.WriteJSON(p.Summary, sum)
}

func envSuffix(libs []string) string {
	s := ""
	for i, l := range libs {
		if i > 0 {
			s += "-"
		}
		s += l
	}
	if len(libs) == 3 && libs[0] == "numpy" && libs[1] == "scipy" && libs[2] == "pandas" {
		return "sci" // the names the tests and CI use: bookworm-sci, trixie-sci
	}
	return s
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

// stageOptions are the Stage 1 and 2 options and rules recorded beside a
// library's candidates (LIB.jsonl.options.json), so that a rerun with other
// options or discovery rules discovers again, and one with other
// extraction rules extracts again, instead of reusing them. A candidates
// file without one predates the record (rules 0).
type stageOptions struct {
	Rules          int      `json:"rules"`                   // bundles.DiffRules of the discovery; 0 before it was recorded
	ExtractRules   int      `json:"extract_rules,omitempty"` // bundles.ExtractRules of the bundles; 0 before it was recorded
	NewIfMovedFrom []string `json:"new_if_moved_from,omitempty"`
}

func stageOptionsPath(cands string) string { return cands + ".options.json" }

// recorded reads the options recorded beside the candidates at cands. ok
// is false when there are no candidates; why is set when the record cannot
// be read (it then counts as differing).
func recorded(cands string) (got stageOptions, ok bool, why string) {
	if _, err := os.Stat(cands); err != nil {
		return got, false, ""
	}
	data, err := os.ReadFile(stageOptionsPath(cands))
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return got, true, err.Error()
	default:
		if err := json.Unmarshal(data, &got); err != nil {
			return got, true, fmt.Sprintf("%s: %v", stageOptionsPath(cands), err)
		}
	}
	return got, true, ""
}

// differences says why the candidates at cands were discovered (discover)
// and why their bundles were extracted (extract) with other options or
// rules than o; each is "" when they were not, and both are "" when there
// are no candidates. An unreadable record counts as differing in both.
func (o stageOptions) differences(cands string) (discover, extract string) {
	got, ok, why := recorded(cands)
	switch {
	case !ok:
		return "", ""
	case why != "":
		return why, why
	case got.Rules != o.Rules:
		discover = fmt.Sprintf("discovery rules %d → %d", got.Rules, o.Rules)
	case !slices.Equal(got.NewIfMovedFrom, o.NewIfMovedFrom):
		discover = fmt.Sprintf("new_if_moved_from %v → %v", got.NewIfMovedFrom, o.NewIfMovedFrom)
	}
	if got.ExtractRules != o.ExtractRules {
		extract = fmt.Sprintf("extraction rules %d → %d", got.ExtractRules, o.ExtractRules)
	}
	return discover, extract
}

// write records o beside the candidates at cands.
func (o stageOptions) write(cands string) error {
	return atomicfile.WriteJSON(stageOptionsPath(cands), o)
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

// readOr reads path with read when it exists, else runs make (which
// writes it).
func readOr[T any](path string, make func() (T, error), read func(string) (T, error), stages map[string]string, name string) (T, error) {
	if _, err := os.Stat(path); err == nil {
		mark(stages, name, false)
		return read(path)
	}
	mark(stages, name, true)
	return make()
}

// Fresh reports whether out exists and is at least as new as in: the
// rule by which every stage (here and in `novelapi tasks build`) reuses
// its output.
func Fresh(out, in string) bool {
	o, err := os.Stat(out)
	if err != nil {
		return false
	}
	i, err := os.Stat(in)
	return err == nil && !o.ModTime().Before(i.ModTime())
}

// hasSharedRow reports whether rep has the paper's shared-hit row, which
// retrieval reports saved before it was computed lack.
func hasSharedRow(rep index.EvalReport) bool {
	_, ok := rep.Row(index.Paper, index.PaperShared, "")
	return ok
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
