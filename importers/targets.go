package importers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tailscale/hujson"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// A KeywordMapping is APICoder's record of which renamed APIs each
// problem needs (pandas_keyword_mapping.json, numpy_keyword_mapping.json:
// the problem_to_keywords object, problem id → renamed names, e.g.
// "PandasEval/0" → ["average"]).
type KeywordMapping map[string][]string

// ReadKeywordMapping reads the problem_to_keywords object of an APICoder
// keyword mapping file. The published numpy file has trailing commas, so
// the file is read as JWCC (JSON with commas and comments,
// github.com/tailscale/hujson). Errors name the file.
func ReadKeywordMapping(path string) (KeywordMapping, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("%s: keyword mapping: %w", path, err)
	}
	var f struct {
		ProblemToKeywords KeywordMapping `json:"problem_to_keywords"`
	}
	if err := json.Unmarshal(std, &f); err != nil {
		return nil, fmt.Errorf("%s: keyword mapping: %w", path, err)
	}
	if len(f.ProblemToKeywords) == 0 {
		return nil, fmt.Errorf("%s: keyword mapping: no problem_to_keywords entries", path)
	}
	return f.ProblemToKeywords, nil
}

// Leaves returns the original names of the renamed APIs the mapping gives
// for problem (a record's task_id, "PandasEval/0"), translated with table,
// in the mapping's order without repeats. A renamed name the table does
// not hold is returned as is.
func (m KeywordMapping) Leaves(problem string, table KeywordTable) []string {
	var out []string
	for _, kw := range m[problem] {
		name := kw
		for _, p := range table {
			if p.Renamed == kw {
				name = p.Original
				break
			}
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// TargetSpace lists where a library's APIs live, for [ResolveTargets]:
// the modules whose functions and the classes whose methods (or
// properties) a leaf name may stand for.
type TargetSpace struct {
	Modules []string
	Classes []string
}

// TargetSpaces are the spaces of the libraries of APICoder's pools. The
// classes are those whose methods the pools' solutions call on values:
// frames, series, indexes, group-bys, string accessors and rolling windows
// of pandas; arrays and masked arrays of numpy.
var TargetSpaces = map[string]TargetSpace{
	"pandas": {
		Modules: []string{"pandas"},
		Classes: []string{"pandas.DataFrame", "pandas.Series", "pandas.Index",
			"pandas.core.groupby.DataFrameGroupBy", "pandas.core.groupby.SeriesGroupBy",
			"pandas.core.strings.accessor.StringMethods", "pandas.core.window.rolling.Rolling"},
	},
	"numpy": {
		Modules: []string{"numpy", "numpy.linalg", "numpy.ma", "numpy.rec", "numpy.char", "numpy.random"},
		Classes: []string{"numpy.ndarray", "numpy.ma.MaskedArray"},
	},
}

// ResolveConfig configures [ResolveTargets].
type ResolveConfig struct {
	// Runner and Store run the programs in each task's environment
	// (required).
	Runner sandbox.Runner
	Store  *debenv.Store
	// Spaces are where the leaves are looked up, the pool's own library
	// first (required): a leaf whose candidates of several libraries the
	// reference calls stands for those of the earliest (pandas' groupby
	// sum calls numpy's ndarray.sum itself).
	Spaces []TargetSpace
	// Workers is the number of tasks resolved at once; 0 means 1.
	Workers int
	// Log receives diagnostics; nil means slog.Default().
	Log *slog.Logger
}

// A Resolution is what [ResolveTargets] found for one task.
type Resolution struct {
	TaskID string   `json:"task_id"`
	Leaves []string `json:"leaves"`
	// Candidates are the public paths the leaves may stand for.
	Candidates []string `json:"candidates"`
	// Called are the candidates the reference called (inside its entry
	// point, or in its module code), most called first: the task's
	// targets.
	Called []string `json:"called"`
	// Counts are the reference's calls per called candidate.
	Counts map[string]int `json:"counts,omitempty"`
	// Reason says why Called is empty.
	Reason string `json:"reason,omitempty"`
}

// ResolveTargets finds, for each task with leaves (task id → original
// names of the APIs the problem needs, [KeywordMapping.Leaves]), the public
// APIs its reference calls: every path of cfg.Spaces where a leaf names a
// callable or property (one program per environment), then the
// reference's program with the recording monitor over all of them
// (docs/protocol.md §4.4), counting per path the calls made inside the
// entry point, or by the module code of a task without one. Per leaf, the
// called paths of the earliest space with any are kept. Tasks without
// leaves are not run. The error is non-nil only when ctx ends, an
// environment is missing or the candidate listing fails.
func ResolveTargets(ctx context.Context, tasks []*Task, leaves map[string][]string, cfg ResolveConfig) ([]Resolution, error) {
	if cfg.Runner == nil || cfg.Store == nil {
		return nil, errors.New("importers: ResolveConfig needs Runner and Store")
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	byEnv := map[string][]string{}
	for _, t := range tasks {
		for _, l := range leaves[t.TaskID] {
			if !slices.Contains(byEnv[t.Environment], l) {
				byEnv[t.Environment] = append(byEnv[t.Environment], l)
			}
		}
	}
	envs := map[string]*sandbox.Environment{}
	var space TargetSpace
	for _, sp := range cfg.Spaces {
		space.Modules = append(space.Modules, sp.Modules...)
		space.Classes = append(space.Classes, sp.Classes...)
	}
	rank := func(path string) int {
		for i, sp := range cfg.Spaces {
			for _, m := range append(slices.Clone(sp.Modules), sp.Classes...) {
				if strings.SplitN(m, ".", 2)[0] == strings.SplitN(path, ".", 2)[0] {
					return i
				}
			}
		}
		return len(cfg.Spaces)
	}
	cands := map[string]map[string][]string{} // env → leaf → paths
	for name, ls := range byEnv {
		env, err := cfg.Store.Get(envName(name))
		if err != nil {
			return nil, fmt.Errorf("environment %q: %w", envName(name), err)
		}
		envs[name] = env
		c, err := listCandidates(ctx, cfg.Runner, env, ls, space)
		if err != nil {
			return nil, err
		}
		cands[name] = c
	}
	script, err := pyFS.ReadFile("py/check.py")
	if err != nil {
		return nil, err
	}
	out := make([]Resolution, len(tasks))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Go(func() {
			for i := range next {
				t := tasks[i]
				r := Resolution{TaskID: t.TaskID, Leaves: leaves[t.TaskID]}
				for _, l := range r.Leaves {
					r.Candidates = append(r.Candidates, cands[t.Environment][l]...)
				}
				switch {
				case len(r.Leaves) == 0:
					r.Reason = "no API named for the task"
				case len(r.Candidates) == 0:
					r.Reason = "no callable of " + strings.Join(r.Leaves, ", ") + " in " + strings.Join(append(slices.Clone(space.Modules), space.Classes...), ", ")
				default:
					r.Counts, r.Reason = countCalls(ctx, cfg.Runner, envs[t.Environment], script, t, r.Candidates)
					for _, l := range r.Leaves {
						best := len(cfg.Spaces) + 1
						for _, p := range cands[t.Environment][l] {
							if r.Counts[p] > 0 {
								best = min(best, rank(p))
							}
						}
						for _, p := range cands[t.Environment][l] {
							if r.Counts[p] > 0 && rank(p) == best && !slices.Contains(r.Called, p) {
								r.Called = append(r.Called, p)
							}
						}
					}
					slices.SortStableFunc(r.Called, func(a, b string) int { return r.Counts[b] - r.Counts[a] })
					if len(r.Called) == 0 && r.Reason == "" {
						r.Reason = "the reference calls none of " + strings.Join(r.Candidates, ", ")
					}
					if r.Reason != "" {
						log.Debug("resolve targets", "task", t.TaskID, "reason", r.Reason)
					}
				}
				out[i] = r
			}
		})
	}
	var cerr error
feed:
	for i := range tasks {
		select {
		case next <- i:
		case <-ctx.Done():
			cerr = context.Cause(ctx)
			break feed
		}
	}
	close(next)
	wg.Wait()
	return out, cerr
}

func envName(name string) string {
	if name == "" {
		return evalharness.DefaultEnvironment
	}
	return name
}

// listCandidates runs py/candidates.py once in env.
func listCandidates(ctx context.Context, runner sandbox.Runner, env *sandbox.Environment, leaves []string, space TargetSpace) (map[string][]string, error) {
	script, err := pyFS.ReadFile("py/candidates.py")
	if err != nil {
		return nil, err
	}
	job, _ := json.Marshal(map[string]any{"leaves": leaves, "modules": space.Modules, "classes": space.Classes})
	r, err := runner.Run(ctx, sandbox.Spec{
		Environment: env,
		Files:       []sandbox.File{{Path: "candidates.py", Data: script}, {Path: "job.json", Data: job}},
		Argv:        []string{"python3", "-I", "-B", "/job/candidates.py"},
		Limits:      sandbox.Limits{Wall: 120 * time.Second, Memory: evalharness.DefaultMemory},
	})
	if err != nil {
		return nil, fmt.Errorf("list candidate APIs: %w", err)
	}
	raw, ok := r.Outputs["candidates.json"]
	if !ok {
		return nil, fmt.Errorf("list candidate APIs: no answer (exit %d, %s): %s", r.ExitCode, r.InfraError, tail(string(r.Stderr), 300))
	}
	var out map[string][]string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("list candidate APIs: %w", err)
	}
	return out, nil
}

// countCalls runs t's reference with the recording monitor over paths and
// returns the calls per path the reference made ("" reason), or why it
// could not tell.
func countCalls(ctx context.Context, runner sandbox.Runner, env *sandbox.Environment, script []byte, t *Task, paths []string) (map[string]int, string) {
	parts := []string{t.HiddenSetup}
	for _, m := range preloads(&Task{Task: &pool.Task{APIName: paths[0], SpyAPIs: paths[1:]}}) {
		parts = append(parts, guardedImport(m))
	}
	parts = append(parts, evalharness.RecordingMonitor(paths), t.ContextCode, resolverBefore, t.MaskedRegion)
	if t.EntryPoint == "" {
		parts = append(parts, "_resolver_add(_resolver_before)")
	} else {
		parts = append(parts, fmt.Sprintf("try:\n    %s = _resolver_wrap(%s)\nexcept NameError:\n    pass", t.EntryPoint, t.EntryPoint))
	}
	parts = append(parts, t.TestHarness.ExecutionTest)
	job, _ := json.Marshal(checkJob{Programs: [][2]string{{"resolve", joinParts(parts...)}}, Timeout: int(max(15*time.Second, t.Timeout()) / time.Second)})
	r, err := runner.Run(ctx, sandbox.Spec{
		Environment: env,
		Files:       []sandbox.File{{Path: "check.py", Data: script}, {Path: "job.json", Data: job}},
		Argv:        []string{"python3", "-I", "-B", "/job/check.py"},
		Limits:      sandbox.Limits{Wall: max(15*time.Second, t.Timeout()) + 60*time.Second, Memory: evalharness.DefaultMemory, PIDs: 256},
	})
	if err != nil {
		return nil, "sandbox: " + err.Error()
	}
	if r.InfraError != "" {
		return nil, "sandbox: " + r.InfraError
	}
	counts := map[string]int{}
	if raw, ok := r.Outputs["called.json"]; ok {
		if err := json.Unmarshal(raw, &counts); err != nil {
			return nil, "bad call counts: " + err.Error()
		}
	}
	called := false
	for _, n := range counts {
		called = called || n > 0
	}
	var rec progRecord
	if raw, ok := r.Outputs["0.json"]; ok {
		_ = json.Unmarshal(raw, &rec)
		if !rec.OK && !called {
			return counts, "the reference failed: " + rec.Exc + ": " + firstLine(rec.Msg)
		}
	}
	return counts, ""
}

// resolverBefore follows the context in countCalls' program: a snapshot
// of the monitor's per-target counts, and the helpers that add the calls
// made since a snapshot to /out/called.json (module code), or made inside
// each call of the entry point.
const resolverBefore = `import json as _resolver_json
_resolver_before = dict(_target_api_counts)
_resolver_called = {}


def _resolver_add(before):
    for _k, _v in _target_api_counts.items():
        _resolver_called[_k] = _resolver_called.get(_k, 0) + _v - before.get(_k, 0)
    with open("/out/called.json", "w") as _f:
        _resolver_json.dump(_resolver_called, _f)


def _resolver_wrap(fn):
    def _resolver_counted(*a, **kw):
        before = dict(_target_api_counts)
        try:
            return fn(*a, **kw)
        finally:
            _resolver_add(before)
    return _resolver_counted`

// SpyTask turns an imported task without a spy into one whose spy watches
// apis (apis[0] is api_name, the others spy_apis; a call of any counts):
// the stock monitor, and the check head of the entry point's scope
// ([CheckHead], pool.SpyScopeEntryPoint) or, for module code, the
// protocol's check block (pool.CheckBlock) before the test. Its expected
// call records stay "ok" without records (the pool's tests decide).
func SpyTask(t *Task, apis []string) {
	t.SpyRequired = nil
	t.APIName, t.SpyAPIs = apis[0], slices.Clone(apis[1:])
	t.TestHarness.SetupCode, t.TestHarness.TargetAPI = pool.StockMonitor(apis[0]), apis[0]
	if t.EntryPoint != "" {
		t.SpyScope = pool.SpyScopeEntryPoint
		t.TestHarness.ExecutionTest = CheckHead(apis[0]) + "\n" + t.TestHarness.ExecutionTest
	} else {
		t.SpyScope = pool.SpyScopeCompletion
		t.TestHarness.ExecutionTest = pool.CheckBlock(apis[0]) + "\n" + t.TestHarness.ExecutionTest
	}
}

// TargetsFile is [SpyPool]'s report in the pool's directory: one
// [Resolution] per task the mapping names APIs for.
const TargetsFile = "targets.jsonl"

// SpyPoolConfig configures [SpyPool].
type SpyPoolConfig struct {
	ResolveConfig
	// Mapping names each problem's renamed APIs (required).
	Mapping KeywordMapping
	// Keywords translates the mapping's renamed names for tasks that carry
	// no table of their own (an original pool: PandasEval, NumpyEval); a
	// renamed pool's tasks use theirs.
	Keywords KeywordTable
}

// SpyPool gives the tasks of the HumanEval-style pool in dir a spy on the
// APIs their problem is about: for each task the mapping names APIs for
// (by the record's id: "PandasEval/0" is task he_PandasEval_0),
// [ResolveTargets] finds the public APIs its reference calls among those
// names and [SpyTask] watches them. A task whose reference calls none, and
// every task the mapping does not name, keeps the spy off; tasks that
// already have a spy are left alone. It rewrites the pool's tasks.jsonl,
// expected_calls.jsonl and reference_predictions.jsonl and writes
// dir/targets.jsonl.
func SpyPool(ctx context.Context, dir string, cfg SpyPoolConfig) ([]Resolution, error) {
	tasks, err := LoadPool(dir)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Task{}
	for _, t := range tasks {
		byID[t.TaskID] = t
	}
	leaves := map[string][]string{}
	var named []*Task
	for problem := range cfg.Mapping {
		t := byID["he_"+safeID(problem)]
		if t == nil || t.SpyNeeded() {
			continue
		}
		table := KeywordTable(t.Keywords)
		if table == nil {
			table = cfg.Keywords
		}
		leaves[t.TaskID] = cfg.Mapping.Leaves(problem, table)
		named = append(named, t)
	}
	slices.SortFunc(named, func(a, b *Task) int { return strings.Compare(a.TaskID, b.TaskID) })
	res, err := ResolveTargets(ctx, named, leaves, cfg.ResolveConfig)
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		if len(r.Called) > 0 {
			SpyTask(named[i], r.Called)
		}
	}
	expected := make([]*pool.ExpectedCalls, len(tasks))
	for i, t := range tasks {
		expected[i] = noRecords(t.Task, t.Origin)
	}
	var skipped []Skipped
	if _, err := os.Stat(filepath.Join(dir, SkippedFile)); err == nil {
		if skipped, _, err = jsonl.Read[Skipped](filepath.Join(dir, SkippedFile), jsonl.ReadOptions{}); err != nil {
			return nil, err
		}
	}
	if err := writePool(dir, nil, tasks, expected, skipped); err != nil {
		return nil, err
	}
	return res, jsonl.Write(filepath.Join(dir, TargetsFile), res)
}
