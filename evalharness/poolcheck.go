package evalharness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/internal/filelock"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/progress"
	"github.com/novelapi/novelapi/pool"
)

// CheckFile is the name of a pool's mutant-check file, beside its
// tasks.jsonl (docs/mutants.md §3).
const CheckFile = "mutant_check.jsonl"

// CheckPath returns the mutant-check file of the task pool at tasksPath.
func CheckPath(tasksPath string) string { return filepath.Join(filepath.Dir(tasksPath), CheckFile) }

// saveEvery is how often a running check records what it has decided.
const saveEvery = 30 * time.Second

// DefaultMutantBatch is PoolCheckConfig.Batch when it is 0: tasks checked
// in one sandbox run, which shares the interpreter's start and imports.
const DefaultMutantBatch = 8

// PoolCheckConfig configures [CheckPool].
type PoolCheckConfig struct {
	// Harness runs the checks; required.
	Harness *Harness
	Tasks   []*pool.Task
	// Expected holds the reference call records by task id. When non-nil,
	// each task's reference is also evaluated through the full harness
	// (spy, call-record check, test), unless References or the check file
	// already hold its verdict; nil checks the test with the mutant script
	// only.
	Expected map[string]*pool.ExpectedCalls
	// References holds full-harness verdicts of references already known
	// (C1's), by task id: "pass", or the failure. Those made by this
	// harness's scripts ([ScriptsDigest]) are used instead of evaluating
	// the reference again; the others are ignored.
	References map[string]Reference
	// Path is the check file read and rewritten (atomically, under a lock)
	// so that unchanged tasks are not checked again; "" keeps nothing.
	Path string
	// Workers is the number of sandbox runs at once; 0 means GOMAXPROCS.
	Workers int
	// Batch is the number of tasks per mutant-check run; 0 means
	// DefaultMutantBatch.
	Batch int
	// Progress receives a progress bar; nil means none.
	Progress io.Writer
	// Log receives progress lines and per-task errors; nil means slog.Default().
	Log *slog.Logger
}

// A Reference is a known full-harness verdict on a task's reference.
type Reference struct {
	Passed bool
	Error  string              // why it failed
	Calls  *pool.ExpectedCalls // the records it was judged with; nil when unknown
	// Harness is the [ScriptsDigest] of the harness that judged it.
	Harness string
}

// A PoolCheck summarises the mutant checks of a pool (docs/mutants.md §3).
type PoolCheck struct {
	Tasks   int `json:"tasks"`
	Checked int `json:"checked"` // checks run now; the others came from the check file
	// ByStatus counts the tasks by TaskCheck.Status.
	ByStatus map[string]int `json:"by_status"`
	// ValueAsserting counts the tasks whose test has at least one value
	// assertion; Discriminating those whose status is CheckDiscriminates;
	// ReferencePasses those whose reference passes.
	ValueAsserting  int `json:"value_asserting"`
	Discriminating  int `json:"discriminating"`
	ReferencePasses int `json:"reference_passes"`
	// Survived counts the tasks by the kind of a mutant that survived.
	Survived map[string]int `json:"survived,omitempty"`
	// Flagged lists, in task order, the tasks whose verdicts the check
	// shows cannot be trusted: weak, reference_fails or error.
	Flagged []TaskCheck `json:"flagged,omitempty"`
	// NoMutant lists, in task order, the tasks no mutant applies to
	// (CheckNoMutant): nothing is known of their tests, which is no fault
	// found. Every task of a HumanEval-style pool whose completion defines
	// a function is one: it names no API and assigns no output.
	NoMutant []TaskCheck `json:"no_mutant,omitempty"`
	// Checks holds every task's check by task id.
	Checks map[string]*TaskCheck `json:"-"`
	Path   string                `json:"path,omitempty"`
	// WriteError says why the outcomes could not be recorded in Path.
	WriteError string `json:"write_error,omitempty"`
}

// Share returns n over the tasks checked (0 for an empty pool).
func (p *PoolCheck) Share(n int) float64 {
	if p.Tasks == 0 {
		return 0
	}
	return float64(n) / float64(p.Tasks)
}

// PredictedTasks returns the tasks that have a prediction in shard, in
// pool order: the tasks an evaluation of preds runs.
func PredictedTasks(tasks []*pool.Task, preds []*pool.Prediction, shard Shard) []*pool.Task {
	want := map[string]bool{}
	for i, p := range preds {
		if shard.Has(i) {
			want[p.TaskID] = true
		}
	}
	var out []*pool.Task
	for _, t := range tasks {
		if want[t.TaskID] {
			out = append(out, t)
		}
	}
	return out
}

// WriteReport writes the check's report for people: one line of shares,
// then one line per flagged task (task id, status, which mutant survived
// or why the reference failed), at most limit of them (0: all), and where
// the mutants' code is.
func (p *PoolCheck) WriteReport(w io.Writer, limit int) {
	if p.Tasks > 0 && len(p.NoMutant) == p.Tasks {
		fmt.Fprintf(w, "test check: no mutant applies to any of the %d tasks (%s: %s), so it says nothing of their tests; %d references pass\n",
			p.Tasks, p.NoMutant[0].TaskID, p.NoMutant[0].noMutant(), p.ReferencePasses)
	} else {
		fmt.Fprintf(w, "test check: %d of %d tasks have tests that reject every mutant (%.1f%%); %d (%.1f%%) have value assertions; %d references pass\n",
			p.Discriminating, p.Tasks, 100*p.Share(p.Discriminating), p.ValueAsserting, 100*p.Share(p.ValueAsserting), p.ReferencePasses)
		if n := len(p.NoMutant); n > 0 {
			fmt.Fprintf(w, "no mutant applies to %d tasks, so it says nothing of their tests (%s: %s)\n", n, p.NoMutant[0].TaskID, p.NoMutant[0].noMutant())
		}
	}
	if len(p.Flagged) == 0 {
		if len(p.NoMutant) > 0 && p.Path != "" && p.WriteError == "" {
			fmt.Fprintf(w, "the mutants' code and outcomes are in %s\n", p.Path)
		}
		return
	}
	fmt.Fprintf(w, "flagged %d tasks whose verdicts cannot be trusted:\n", len(p.Flagged))
	for i, c := range p.Flagged {
		if limit > 0 && i == limit {
			fmt.Fprintf(w, "  ... and %d more\n", len(p.Flagged)-limit)
			break
		}
		fmt.Fprintf(w, "  %s  %s: %s\n", c.TaskID, c.Status, c.Why())
	}
	if p.Path != "" && p.WriteError == "" {
		fmt.Fprintf(w, "the mutants' code and outcomes are in %s\n", p.Path)
	}
}

// CheckPool runs the mutant check of every task (docs/mutants.md): the
// reference must pass its test and each mutant must fail at least one
// assertion. A task whose check in cfg.Path has the task's digest (and,
// with Expected, a reference verdict made with the same call records) is
// not checked again. The check file keeps the entries of other tasks, so
// pools sharing a directory share it. Errors of single tasks are recorded
// as CheckError; the error is non-nil when ctx ends or the check file
// cannot be read or written.
func CheckPool(ctx context.Context, cfg PoolCheckConfig) (*PoolCheck, error) {
	if cfg.Harness == nil {
		return nil, errors.New("evalharness: PoolCheckConfig.Harness is nil")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultMutantBatch
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	refs := map[string]Reference{}
	for id, r := range cfg.References {
		if r.Harness == ScriptsDigest() {
			refs[id] = r
		}
	}
	cfg.References = refs
	cached, err := readChecks(cfg.Path)
	if err != nil {
		log.Warn("mutant check: the check file cannot be read; checking every task", "err", err)
		cached = map[string]*TaskCheck{}
	}
	checks := make([]*TaskCheck, len(cfg.Tasks))
	var needScript []int
	var needRef []int
	for i, t := range cfg.Tasks {
		c, ok := cached[t.TaskID]
		if !ok || c.Digest != TaskDigest(t) || c.Version != MutantCheckVersion || c.Status == CheckError {
			needScript = append(needScript, i)
			continue
		}
		cc := *c
		checks[i] = &cc
		if cfg.wantsReference(t, &cc) {
			needRef = append(needRef, i)
		}
	}
	res := &PoolCheck{Path: cfg.Path}
	if len(needScript) > 0 || len(needRef) > 0 {
		log.Info("mutant check", "tasks", len(cfg.Tasks), "cached", len(cfg.Tasks)-len(needScript), "to check", len(needScript))
	}
	// The script runs first, in batches; references are evaluated after.
	todo := make([]*pool.Task, len(needScript))
	for k, i := range needScript {
		todo[k] = cfg.Tasks[i]
	}
	batches := mutantBatches(todo, cfg.Batch)
	bar := progress.New(cfg.Progress, len(needScript)+len(needRef), "mutant check")
	var mu sync.Mutex
	// save records what is decided so far, at most every saveEvery, so
	// that an interrupted check resumes (call with mu held).
	lastSave := time.Now()
	save := func(force bool) {
		if cfg.Path == "" || (!force && time.Since(lastSave) < saveEvery) {
			return
		}
		lastSave = time.Now()
		if err := writeChecks(cfg.Path, checks); err != nil {
			log.Warn("mutant check: outcomes not recorded", "err", err)
			res.WriteError = err.Error()
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Workers)
	for _, b := range batches {
		g.Go(func() error {
			ts := make([]*pool.Task, len(b))
			for k, j := range b {
				ts[k] = todo[j]
			}
			cs, err := cfg.runScript(gctx, ts)
			if err != nil {
				if gctx.Err() != nil {
					return context.Cause(gctx)
				}
				log.Warn("mutant check failed", "tasks", len(ts), "first", ts[0].TaskID, "err", err)
				cs = make([]TaskCheck, len(ts))
				for k, t := range ts {
					cs[k] = TaskCheck{TaskID: t.TaskID, Digest: TaskDigest(t), Version: MutantCheckVersion, Error: err.Error()}
					cs[k].settle()
				}
			}
			mu.Lock()
			for k, j := range b {
				checks[needScript[j]] = &cs[k]
			}
			save(false)
			mu.Unlock()
			bar.Add(len(b))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		mu.Lock()
		save(true)
		mu.Unlock()
		return nil, err
	}
	for _, i := range needScript {
		if cfg.wantsReference(cfg.Tasks[i], checks[i]) {
			needRef = append(needRef, i)
		}
	}
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(cfg.Workers)
	for _, i := range needRef {
		t, c := cfg.Tasks[i], checks[i]
		g.Go(func() error {
			if r, ok := cfg.References[t.TaskID]; ok {
				mu.Lock()
				c.ReferenceCalls, c.ReferenceHarness = callsDigest(r.Calls), r.Harness
				c.Reference, c.ReferenceError = "pass", ""
				if !r.Passed {
					c.Reference, c.ReferenceError = "fail", r.Error
				}
				c.settle()
				mu.Unlock()
			} else {
				// The verdict is made on a copy: save reads c under mu.
				mu.Lock()
				rc := *c
				mu.Unlock()
				if err := cfg.Harness.checkReference(gctx, t, cfg.Expected[t.TaskID], &rc); err != nil {
					if gctx.Err() != nil {
						return context.Cause(gctx)
					}
					log.Warn("reference check failed", "task", t.TaskID, "err", err)
				}
				mu.Lock()
				*c = rc
				save(false)
				mu.Unlock()
			}
			bar.Add(1)
			return nil
		})
	}
	err = g.Wait()
	res.Checked = len(needScript)
	if len(needScript) > 0 || len(needRef) > 0 {
		// The file only saves work: a pool in a read-only directory is
		// checked again next time.
		save(true)
	}
	if err != nil {
		return nil, err
	}
	res.summarise(cfg.Tasks, checks)
	return res, nil
}

// wantsReference reports whether c lacks a full-harness verdict on t's
// reference that cfg can give: References has one, or Expected is set
// and c's verdict was made with other call records or by another
// harness ([ScriptsDigest]).
func (cfg *PoolCheckConfig) wantsReference(t *pool.Task, c *TaskCheck) bool {
	if c.Status == CheckError {
		return false
	}
	if r, ok := cfg.References[t.TaskID]; ok {
		return c.Reference == "" || c.ReferenceCalls != callsDigest(r.Calls) || c.ReferenceHarness != r.Harness
	}
	if cfg.Expected == nil {
		return false
	}
	return c.Reference == "" || c.ReferenceCalls != callsDigest(cfg.Expected[t.TaskID]) || c.ReferenceHarness != ScriptsDigest()
}

// runScript runs the mutant script on tasks that share an environment.
func (cfg *PoolCheckConfig) runScript(ctx context.Context, tasks []*pool.Task) ([]TaskCheck, error) {
	env, err := cfg.Harness.environment(tasks[0])
	if err != nil {
		return nil, err
	}
	run := func(ts []*pool.Task, skip map[string][][2]string) ([]TaskCheck, map[string][2]string, error) {
		return runMutantCheck(ctx, cfg.Harness.cfg.Runner, env, cfg.Harness.cfg.Memory, ts, skip)
	}
	cs, died, err := run(tasks, nil)
	if err != nil {
		return nil, err
	}
	// A task a batch left unfinished is checked alone; one whose run died
	// while a mutant ran is checked again without that mutant.
	for k, c := range cs {
		if c.Status != CheckError || c.Script == "timeout" || (len(tasks) == 1 && died[c.TaskID] == [2]string{}) {
			continue
		}
		id := c.TaskID
		skip := map[string][][2]string{}
		for try := 0; try <= maxCrashRetries; try++ {
			if m, ok := died[id]; ok && m != [2]string{} {
				skip[id] = append(skip[id], m)
			} else if try > 0 || len(tasks) == 1 {
				break
			}
			one, d, err := run(tasks[k:k+1], skip)
			if err != nil {
				return nil, err
			}
			cs[k], died = one[0], d
			if cs[k].Status != CheckError {
				break
			}
		}
	}
	return cs, nil
}

func (p *PoolCheck) summarise(tasks []*pool.Task, checks []*TaskCheck) {
	p.Tasks = len(tasks)
	p.ByStatus = map[string]int{}
	p.Survived = map[string]int{}
	p.Checks = map[string]*TaskCheck{}
	for i, t := range tasks {
		c := checks[i]
		p.Checks[t.TaskID] = c
		p.ByStatus[c.Status]++
		if c.ValueAssertions > 0 {
			p.ValueAsserting++
		}
		if c.Script == "pass" && (c.Reference == "" || c.Reference == "pass") {
			p.ReferencePasses++
		}
		if c.Status == CheckDiscriminates {
			p.Discriminating++
			continue
		}
		kinds := map[string]bool{}
		for _, m := range c.Survivors() {
			kinds[m.Name] = true
		}
		for k := range kinds {
			p.Survived[k]++
		}
		if c.Status == CheckNoMutant {
			p.NoMutant = append(p.NoMutant, *c)
			continue
		}
		p.Flagged = append(p.Flagged, *c)
	}
}

// readChecks reads a check file by task id; a missing file or path "" is
// empty, and lines that do not parse are skipped (the file is a cache).
func readChecks(path string) (map[string]*TaskCheck, error) {
	out := map[string]*TaskCheck{}
	if path == "" {
		return out, nil
	}
	recs, _, err := jsonl.Read[*TaskCheck](path, jsonl.ReadOptions{SkipBad: true})
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read mutant checks: %w", err)
	}
	for _, r := range recs {
		if r != nil && r.TaskID != "" {
			out[r.TaskID] = r
		}
	}
	return out, nil
}

// writeChecks merges checks into the check file at path under its lock:
// entries of other tasks are kept, the file is replaced atomically and
// sorted by task id.
func writeChecks(path string, checks []*TaskCheck) error {
	// A pool being built has no directory yet.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write mutant checks: %w", err)
	}
	unlock, err := filelock.Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	merged, err := readChecks(path)
	if err != nil {
		return err
	}
	for _, c := range checks {
		if c != nil {
			merged[c.TaskID] = c
		}
	}
	ids := make([]string, 0, len(merged))
	for id := range merged {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	recs := make([]*TaskCheck, len(ids))
	for i, id := range ids {
		recs[i] = merged[id]
	}
	if err := jsonl.Write(path, recs); err != nil {
		return fmt.Errorf("write mutant checks: %w", err)
	}
	return nil
}

// FlaggedIDs returns the ids of the flagged tasks, sorted.
func (p *PoolCheck) FlaggedIDs() []string {
	ids := make([]string, len(p.Flagged))
	for i, c := range p.Flagged {
		ids[i] = c.TaskID
	}
	return slices.Sorted(slices.Values(ids))
}
