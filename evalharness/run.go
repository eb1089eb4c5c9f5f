package evalharness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/filelock"
	"github.com/novelapi/novelapi/pool"
	"github.com/schollz/progressbar/v3"
)

// ErrMetaMismatch reports a rerun into a directory whose eval_meta.json
// describes a different evaluation (evaluator version, failure labels,
// pass@5, condition or shard); resuming would mix incompatible verdicts.
var ErrMetaMismatch = errors.New("evalharness: run directory holds a different evaluation")

// ErrRunInUse reports a run directory that another process is writing
// (another [Run] or [Merge] into the same directory); two writers would
// interleave their results.
var ErrRunInUse = errors.New("evalharness: run directory in use")

// lockRun takes the run directory's lock (results.jsonl.lock, held until
// unlock or the process ends) without waiting; a directory another process
// holds is ErrRunInUse naming that process.
func lockRun(dir string) (unlock func(), err error) {
	unlock, err = filelock.TryLock(filepath.Join(dir, pool.ResultsFile))
	if le, ok := errors.AsType[*filelock.LockedError](err); ok {
		who := "another process"
		if le.PID > 0 {
			who = fmt.Sprintf("process %d", le.PID)
		}
		return nil, fmt.Errorf("%w: %s is being written by %s (an eval run or merge into the same directory); wait for it to end or use another output directory", ErrRunInUse, dir, who)
	}
	return unlock, err
}

// CheckExpected returns a *MissingExpectedError naming the predicted tasks
// that need reference call records (docs/protocol.md §1.4: every task whose spy is
// required) but have none in expected, or nil. Callers run it before [Run],
// which would otherwise score each such task as an infrastructure error
// (the harness refuses it, [ErrRefused]).
func CheckExpected(tasks []*pool.Task, preds []*pool.Prediction, expected map[string]*pool.ExpectedCalls) error {
	byID := make(map[string]*pool.Task, len(tasks))
	for _, t := range tasks {
		byID[t.TaskID] = t
	}
	var missing []string
	for _, p := range preds {
		if t := byID[p.TaskID]; t != nil && t.SpyNeeded() && expected[t.TaskID] == nil {
			missing = append(missing, t.TaskID)
		}
	}
	if len(missing) > 0 {
		return &MissingExpectedError{Tasks: missing}
	}
	return nil
}

// A MissingExpectedError reports tasks that need reference call records
// but have none ([CheckExpected]).
type MissingExpectedError struct {
	Tasks []string // task ids, in work order
	// Where says where the records were looked for ("" when unknown).
	Where string
}

func (e *MissingExpectedError) Error() string { return "evalharness: " + e.Message() }

// ErrNoPredictions reports a run without a single prediction (an empty
// predictions file), which would otherwise summarise zero tasks.
var ErrNoPredictions = errors.New("evalharness: no predictions to evaluate")

// An Evaluator decides one completion of a task. [*Harness] implements it;
// Evaluate must be safe for concurrent use. A non-nil error means the
// completion could not be evaluated (sandbox failure, refused task, ctx
// cancelled), not that it failed.
type Evaluator interface {
	Evaluate(ctx context.Context, task *pool.Task, expected *pool.ExpectedCalls, response string) (Verdict, error)
}

// A Shard selects the predictions whose 0-based index in predictions.jsonl
// is congruent to Index modulo Count. The zero value selects everything.
type Shard struct {
	Index int // 0-based, < Count
	Count int // number of shards; 0 or 1 means unsharded
}

// ParseShard parses "i/n" (0 ≤ i < n). "" parses to the zero Shard.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 0 <= i < n", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String returns "i/n", or "" for an unsharded run.
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether the prediction at index i belongs to the shard.
func (s Shard) Has(i int) bool { return s.Count <= 1 || i%s.Count == s.Index }

// Defaults of RunConfig.
const (
	// DefaultWatchdog is how long a run may go without a completed task
	// before the watchdog logs the tasks in flight (docs/sandbox.md §4.7).
	DefaultWatchdog = 60 * time.Second
	// DefaultInfraRetries is how often a sample that hit an infrastructure
	// error is re-evaluated (docs/sandbox.md §4.7: "Retry INFRA_ERROR up to 2×").
	DefaultInfraRetries = 2
)

// RunConfig configures [Run]. Run never modifies it or what it points to.
type RunConfig struct {
	// Tasks are the task pool (docs/protocol.md §1.3); every prediction's task_id
	// must be among them.
	Tasks []*pool.Task
	// Expected holds the reference call records by task id (docs/protocol.md §1.4);
	// nil means none (the harness decides what a task without records means).
	Expected map[string]*pool.ExpectedCalls
	// Predictions are evaluated in file order; their index is the stable
	// index of sharding and of merged results.
	Predictions []*pool.Prediction
	// OutDir receives results.jsonl, summary.json and eval_meta.json; it is
	// created if needed. A rerun into the same directory resumes.
	OutDir string
	// Workers is the number of tasks evaluated at once; 0 means
	// runtime.NumCPU() (docs/sandbox.md §4.7: concurrency = CPUs).
	Workers int
	// Shard selects a subset of the predictions; zero means all.
	Shard Shard
	// Condition is recorded on every result; "" means each prediction's
	// cell field.
	Condition string
	// Source is the knowledge source recorded in eval_meta.json
	// (SourceOracle, SourceRetrieved or ""); see [ReportSweep].
	Source string
	// Samples caps the samples evaluated per task; 0 means all of them.
	// samples[0] (greedy) decides passed and label; all samples feed pass@k.
	Samples int
	// Harness evaluates each sample; required.
	Harness Evaluator
	// EvaluatorVersion identifies the evaluator for eval_meta.json; "" means
	// a hash of the harness's embedded Python scripts and the expected call
	// records (see [EvaluatorVersion]), the analogue of the protocol's hash
	// over evaluator sources and expected_calls.jsonl (§1.8).
	EvaluatorVersion string
	// ClassifyFailures, Taxonomy, Judge and Backend are recorded in
	// eval_meta.json; they do not change what Run does (the Harness is
	// configured by the caller). Taxonomy is the Harness's Config.Taxonomy
	// and Judge its judge's model name ("" without a judge).
	ClassifyFailures bool
	Taxonomy, Judge  string
	Backend          string
	// TasksPath and PredictionsPath are recorded in eval_meta.json.
	TasksPath, PredictionsPath string
	// Rescore deletes the directory's existing results and re-scores every
	// task; without it a directory whose eval_meta.json differs fails with
	// ErrMetaMismatch (docs/protocol.md §1.8) and a resume keeps the results whose
	// samples are unchanged.
	Rescore bool
	// ScoreMissing scores every task of Tasks that has no prediction as a
	// failure (status pool.StatusNoPrediction, label WrongAPISelection: the
	// protocol's verdict on an empty response, §9.6), so that pass@1 is over
	// the whole pool; a task of a pool that follows the HumanEval
	// convention ([pool.Task.HumanEvalConvention]) is recorded as missing
	// instead ([pool.TaskResult.Missing]: no label, in no metric, counted in
	// [Metrics.Missing]). false evaluates only the predicted tasks
	// (protocol §1.8: summary.json is written in prediction order).
	ScoreMissing bool
	// Progress receives a progress bar with rate and ETA; nil means a log
	// line every ProgressLogInterval instead (for logs that are not terminals).
	Progress io.Writer
	// Log receives run events; nil means slog.Default().
	Log *slog.Logger
	// Watchdog is the stall interval; 0 means DefaultWatchdog.
	Watchdog time.Duration
}

// Run evaluates the predictions of cfg.Shard with cfg.Harness and writes
// cfg.OutDir/results.jsonl (one pool.TaskResult per task, appended and fsynced as
// each task completes), then summary.json and eval_meta.json atomically, in
// the protocol's formats (docs/protocol.md §1.8, §4.7).
//
// Run holds the directory's lock while it works: a second Run or [Merge]
// into the same directory fails at once with [ErrRunInUse]. A rerun
// resumes: tasks already in results.jsonl are skipped, lines that are not
// complete records (a torn last line left by a kill) are dropped and their
// tasks evaluated again, and tasks whose greedy sample hit an
// infrastructure error are evaluated again, so the file never holds two
// records of a task. Samples that still hit an infrastructure error after
// DefaultInfraRetries retries are excluded from n and listed in the summary
// (docs/sandbox.md §2). When ctx is cancelled Run stops taking tasks, keeps
// every completed result and returns context.Cause(ctx) without a summary.
func Run(ctx context.Context, cfg RunConfig) (Summary, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if cfg.OutDir == "" {
		return Summary{}, errors.New("eval run: no output directory")
	}
	if cfg.Harness == nil {
		return Summary{}, errors.New("eval run: no harness")
	}
	if len(cfg.Predictions) == 0 {
		return Summary{}, ErrNoPredictions
	}
	work, err := selectWork(cfg)
	if err != nil {
		return Summary{}, err
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return Summary{}, err
	}
	unlock, err := lockRun(cfg.OutDir)
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	meta := cfg.meta()
	if err := checkMeta(cfg.OutDir, meta, cfg.Rescore, log); err != nil {
		return Summary{}, err
	}
	if err := atomicfile.WriteJSON(filepath.Join(cfg.OutDir, pool.MetaFile), meta); err != nil {
		return Summary{}, err
	}

	path := filepath.Join(cfg.OutDir, pool.ResultsFile)
	done, err := resumeResults(path, work, log)
	if err != nil {
		return Summary{}, err
	}
	var pending []workItem
	changed := map[string]bool{}
	for _, w := range work {
		h, ok := done[w.pred.TaskID]
		if ok && h != cfg.samplesHash(w) {
			changed[w.pred.TaskID] = true
		}
		if !ok || changed[w.pred.TaskID] {
			pending = append(pending, w)
		}
	}
	if len(changed) > 0 {
		// The predictions changed since these results were written.
		log.Info("re-evaluating tasks whose samples changed", "count", len(changed))
		if err := dropResults(path, changed); err != nil {
			return Summary{}, err
		}
	}
	if len(done) > 0 {
		log.Info("resuming", "dir", cfg.OutDir, "done", len(work)-len(pending), "pending", len(pending))
	}
	if err := cfg.runPending(ctx, path, pending, len(done), log); err != nil {
		return Summary{}, err
	}
	return finish(cfg.OutDir, work, meta.EvaluatorVersion, nil)
}

// workItem is one prediction to evaluate with its task.
type workItem struct {
	index   int
	pred    *pool.Prediction
	task    *pool.Task
	missing bool // no prediction: scored as pool.StatusNoPrediction
}

// selectWork pairs the shard's predictions with their tasks.
func selectWork(cfg RunConfig) ([]workItem, error) {
	byID := make(map[string]*pool.Task, len(cfg.Tasks))
	for _, t := range cfg.Tasks {
		byID[t.TaskID] = t
	}
	var work []workItem
	var missing []string
	for i, p := range cfg.Predictions {
		if !cfg.Shard.Has(i) {
			continue
		}
		t, ok := byID[p.TaskID]
		if !ok {
			missing = append(missing, p.TaskID)
			continue
		}
		work = append(work, workItem{index: i, pred: p, task: t})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("eval run: %d predictions name tasks absent from the task pool: %s", len(missing), abbrev(missing, 5))
	}
	if cfg.ScoreMissing {
		have := make(map[string]bool, len(cfg.Predictions))
		for _, p := range cfg.Predictions {
			have[p.TaskID] = true
		}
		// A missing task belongs to the run's condition: --condition, else
		// the one cell of the predictions ("" when they hold several).
		cell := cfg.Condition
		if cell == "" {
			cell = soleCell(cfg.Predictions)
		}
		i := len(cfg.Predictions)
		for _, t := range cfg.Tasks {
			if have[t.TaskID] {
				continue
			}
			have[t.TaskID] = true
			if cfg.Shard.Has(i) {
				work = append(work, workItem{index: i, pred: &pool.Prediction{TaskID: t.TaskID, Cell: cell}, task: t, missing: true})
			}
			i++
		}
	}
	return work, nil
}

// soleCell returns the cell all of preds name, or "" when they name
// several or none.
func soleCell(preds []*pool.Prediction) string {
	cell := ""
	for _, p := range preds {
		switch {
		case p.Cell == "" || p.Cell == cell:
		case cell == "":
			cell = p.Cell
		default:
			return ""
		}
	}
	return cell
}

// meta returns the eval_meta.json of this run.
func (cfg RunConfig) meta() EvalMeta {
	v := cfg.EvaluatorVersion
	if v == "" {
		ids := slices.Sorted(maps.Keys(cfg.Expected))
		parts := embeddedScripts()
		for _, id := range ids {
			e := cfg.Expected[id]
			parts = append(parts, []byte(id), []byte(e.Status))
			for _, r := range e.Expected {
				parts = append(parts, r)
			}
		}
		v = EvaluatorVersion(parts...)
	}
	passAt5 := false
	for _, p := range cfg.Predictions {
		if cfg.sampleCount(p) >= 5 {
			passAt5 = true
			break
		}
	}
	return EvalMeta{
		EvaluatorVersion: v, ClassifyFailures: cfg.ClassifyFailures, PassAt5: passAt5, Taxonomy: cfg.Taxonomy, Judge: cfg.Judge,
		Condition: cfg.Condition, Shard: cfg.Shard.String(), Backend: cfg.Backend,
		Tasks: cfg.TasksPath, Predictions: cfg.PredictionsPath, Source: cfg.Source,
	}
}

// samplesHash is pool.TaskResult.SamplesHash for w: 16 hex digits of sha256
// over the samples that will be evaluated ("" samples for a missing one).
func (cfg RunConfig) samplesHash(w workItem) string {
	n := cfg.sampleCount(w.pred)
	parts := make([][]byte, 0, n+1)
	parts = append(parts, []byte(strconv.FormatBool(w.missing)))
	for _, s := range w.pred.Samples[:n] {
		parts = append(parts, []byte(s))
	}
	return EvaluatorVersion(parts...)
}

func (cfg RunConfig) sampleCount(p *pool.Prediction) int {
	if cfg.Samples > 0 && cfg.Samples < len(p.Samples) {
		return cfg.Samples
	}
	return len(p.Samples)
}

// checkMeta compares dir's existing eval_meta.json with want. On a mismatch
// it deletes the old results when rescore is set, else fails.
func checkMeta(dir string, want EvalMeta, rescore bool, log *slog.Logger) error {
	have, err := ReadMeta(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if have.sameEvaluation(want) && !rescore {
		return nil
	}
	if !rescore {
		return fmt.Errorf("%w: %s has evaluator %s, labels %v, pass@5 %v, condition %q, shard %q; this run has %s, %v, %v, %q, %q (use a new directory or rescore)",
			ErrMetaMismatch, filepath.Join(dir, pool.MetaFile), have.EvaluatorVersion, have.ClassifyFailures, have.PassAt5, have.Condition, have.Shard,
			want.EvaluatorVersion, want.ClassifyFailures, want.PassAt5, want.Condition, want.Shard)
	}
	log.Warn("rescoring: deleting old results", "dir", dir)
	for _, f := range []string{pool.ResultsFile, pool.SummaryFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// resumeResults reads path, drops the lines that are not complete records
// (a torn last line left by a kill, or lines garbled anywhere), the
// infra-error records (to be retried) and duplicates, rewriting the file
// atomically when it drops anything, and returns the completed task ids of
// the work set with their samples hashes. The tasks of dropped lines are
// evaluated again.
func resumeResults(path string, work []workItem, log *slog.Logger) (map[string]string, error) {
	results, torn, err := pool.ScanResults(path)
	if err != nil {
		return nil, err
	}
	if len(torn) > 0 {
		log.Warn("results.jsonl: dropping lines that are not complete records; their tasks are evaluated again",
			"path", path, "lines", abbrev(intStrings(torn), 10))
	}
	inWork := make(map[string]bool, len(work))
	for _, w := range work {
		inWork[w.pred.TaskID] = true
	}
	done := map[string]string{}
	var keep []pool.TaskResult
	dropped, foreign := 0, 0
	for _, r := range results {
		if _, dup := done[r.TaskID]; r.InfraError() || dup {
			dropped++
			continue
		}
		keep = append(keep, r)
		if inWork[r.TaskID] {
			done[r.TaskID] = r.SamplesHash
		} else {
			foreign++
		}
	}
	if foreign > 0 {
		log.Warn("results.jsonl holds tasks outside this run; they are kept but not summarised", "count", foreign)
	}
	if dropped > 0 {
		log.Info("re-evaluating tasks that hit infrastructure errors", "count", dropped)
	}
	if dropped > 0 || len(torn) > 0 {
		if err := writeResults(path, keep); err != nil {
			return nil, err
		}
	}
	return done, nil
}

// intStrings formats ns in decimal.
func intStrings(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}

// runPending evaluates pending with a worker pool, appending each result to
// path as it completes.
func (cfg RunConfig) runPending(ctx context.Context, path string, pending []workItem, done int, log *slog.Logger) error {
	_, valid, err := pool.ReadResults(path)
	if err != nil {
		return err
	}
	rw, err := openResults(path, valid)
	if err != nil {
		return err
	}
	defer rw.Close()
	if len(pending) == 0 {
		return nil
	}

	bar := newBar(cfg.Progress, len(pending), done)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, len(pending))
	jobs := make(chan workItem)
	out := make(chan pool.TaskResult)
	fl := newInFlight()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for w := range jobs {
				fl.add(w.pred.TaskID)
				r, ok := cfg.evaluateTask(ctx, w, log)
				fl.remove(w.pred.TaskID)
				if !ok {
					continue
				}
				out <- r // the collector drains out until it is closed
			}
		})
	}
	go func() {
		defer close(jobs)
		for _, w := range pending {
			select {
			case jobs <- w:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	watchdog := cfg.Watchdog
	if watchdog <= 0 {
		watchdog = DefaultWatchdog
	}
	tick := time.NewTicker(min(watchdog, 5*time.Second))
	defer tick.Stop()
	start, lastLog, completed := time.Now(), time.Now(), 0
	last, warned := time.Now(), false
	var werr error
	for {
		select {
		case r, ok := <-out:
			if !ok {
				if bar != nil {
					bar.Finish()
					fmt.Fprintln(cfg.Progress)
				}
				if werr != nil {
					return werr
				}
				if err := ctx.Err(); err != nil {
					return context.Cause(ctx)
				}
				return nil
			}
			if werr == nil {
				if err := rw.Append(r); err != nil {
					werr = fmt.Errorf("append %s: %w", path, err)
					cancel(werr)
				}
			}
			completed++
			if bar != nil {
				bar.Add(1)
			}
			last, warned = time.Now(), false
		case <-tick.C:
			if bar == nil && time.Since(lastLog) >= ProgressLogInterval {
				logProgress(log, start, completed, len(pending))
				lastLog = time.Now()
			}
			if stall := time.Since(last); stall >= watchdog && !warned {
				log.Warn("watchdog: no task completed", "for", stall.Round(time.Second), "in_flight", fl.list())
				warned = true
			}
		}
	}
}

// evaluateTask evaluates a task's samples in order and builds its
// pool.TaskResult; ok is false when ctx was cancelled before it finished.
func (cfg RunConfig) evaluateTask(ctx context.Context, w workItem, log *slog.Logger) (pool.TaskResult, bool) {
	if w.missing {
		v := Verdict{
			Status: pool.StatusNoPrediction, Label: pool.LabelWrongAPISelection, Rule: "novelapi:no-prediction",
			Rationale: "no prediction for this task; scored as an empty response (protocol §9.6)",
		}
		if w.task.HumanEvalConvention() {
			v.Label, v.Rationale = "", "no prediction for this task; missing, not failed: a HumanEval-style pool's pass@k is over the tasks with a prediction (openai/human-eval)"
		}
		r := newTaskResult(w.index, w.task, w.pred.Cell, []Verdict{v})
		r.Missing = w.task.HumanEvalConvention()
		r.SamplesHash = cfg.samplesHash(w)
		return r, true
	}
	var expected *pool.ExpectedCalls
	if cfg.Expected != nil {
		expected = cfg.Expected[w.pred.TaskID]
	}
	n := cfg.sampleCount(w.pred)
	verdicts := make([]Verdict, n)
	for i := range n {
		v, ok := cfg.evaluateSample(ctx, w, expected, w.pred.Samples[i], log)
		if !ok {
			return pool.TaskResult{}, false
		}
		verdicts[i] = v
	}
	cond := cfg.Condition
	if cond == "" {
		cond = w.pred.Cell
	}
	r := newTaskResult(w.index, w.task, cond, verdicts)
	r.SamplesHash = cfg.samplesHash(w)
	return r, true
}

// dropResults rewrites path without the results of the tasks in drop.
func dropResults(path string, drop map[string]bool) error {
	results, _, err := pool.ReadResults(path)
	if err != nil {
		return err
	}
	return writeResults(path, slices.DeleteFunc(results, func(r pool.TaskResult) bool { return drop[r.TaskID] }))
}

// evaluateSample evaluates one response, retrying infrastructure errors
// (docs/sandbox.md §4.7). An error from the Evaluator becomes an INFRA_ERROR
// verdict; ok is false only when ctx is done.
func (cfg RunConfig) evaluateSample(ctx context.Context, w workItem, expected *pool.ExpectedCalls, response string, log *slog.Logger) (Verdict, bool) {
	var v Verdict
	for attempt := 0; attempt <= DefaultInfraRetries; attempt++ {
		var err error
		v, err = cfg.Harness.Evaluate(ctx, w.task, expected, response)
		if err != nil && ctx.Err() != nil {
			return Verdict{}, false
		}
		if err != nil {
			v = Verdict{Status: pool.StatusInfraError, InfraError: err.Error(), Error: truncTail(err.Error(), 500)}
		}
		if v.Status != pool.StatusInfraError || v.TaskDefect {
			if attempt > 0 {
				v.Retried = true
			}
			return v, true
		}
		log.Warn("infrastructure error", "task", w.pred.TaskID, "attempt", attempt+1, "err", v.InfraError)
	}
	return v, true
}

// newTaskResult builds the pool.TaskResult of a task from its samples' verdicts
// (docs/protocol.md §4.7); verdicts[0] is the greedy sample.
func newTaskResult(index int, t *pool.Task, condition string, verdicts []Verdict) pool.TaskResult {
	g := verdicts[0]
	r := pool.TaskResult{
		TaskID: t.TaskID, APIName: t.APIName, Library: t.Library, Domain: t.Domain, Difficulty: t.Difficulty,
		Passed: g.Passed, Label: g.Label, Rationale: g.Rationale, ExceptionType: g.ExceptionType, Error: g.Error,
		Condition: condition, Novelty: t.Novelty, Status: g.Status, Rule: g.Rule,
		Executed: g.Executed, TargetCalled: g.TargetCalled, SpyCalls: g.SpyCalls,
		NonexistentCalls: g.NonexistentCalls, SignatureErrors: g.SignatureErrors,
		Retried: g.Retried, WallMS: g.Wall.Milliseconds(), Index: index, Signal: g.Signal,
		CalledAPIs: g.CalledAPIs, SpyOff: !t.SpyNeeded(), Group: t.Group,
		Code: g.Code, Written: g.Written, Joined: g.Joined, Unrenamed: g.Unrenamed,
	}
	if t.SpyNeeded() {
		r.RequiredAPIs = t.Targets()
	}
	if g.Passed {
		r.Error = ""
	}
	for _, v := range verdicts {
		if v.Status == pool.StatusInfraError {
			continue
		}
		r.NSamples++
		r.NPassed += b2i(v.Passed)
		r.NExecuted += b2i(v.Executed)
	}
	if p, ok := PassAtK(r.NSamples, r.NPassed, 5); ok {
		r.PassAt5 = &p
	}
	if len(verdicts) > 1 {
		r.Samples = make([]pool.SampleVerdict, len(verdicts))
		for i, v := range verdicts {
			r.Samples[i] = pool.SampleVerdict{
				Passed: v.Passed, Label: v.Label, Rule: v.Rule, Status: v.Status, ExceptionType: v.ExceptionType, Signal: v.Signal,
				Executed: v.Executed, TargetCalled: v.TargetCalled, CalledAPIs: v.CalledAPIs, NonexistentCalls: v.NonexistentCalls,
				SignatureErrors: v.SignatureErrors, WallMS: v.Wall.Milliseconds(),
			}
		}
	}
	return r
}

// finish reads the run's results, orders them by prediction index, writes
// summary.json atomically and returns it. work nil means every result.
func finish(dir string, work []workItem, version string, shards []string) (Summary, error) {
	results, _, err := pool.ReadResults(filepath.Join(dir, pool.ResultsFile))
	if err != nil {
		return Summary{}, err
	}
	if work != nil {
		in := make(map[string]bool, len(work))
		for _, w := range work {
			in[w.pred.TaskID] = true
		}
		results = slices.DeleteFunc(results, func(r pool.TaskResult) bool { return !in[r.TaskID] })
	}
	slices.SortStableFunc(results, func(a, b pool.TaskResult) int { return a.Index - b.Index })
	s := Summarize(results, version)
	s.Shards = shards
	return s, atomicfile.WriteJSON(filepath.Join(dir, pool.SummaryFile), s)
}

// newBar returns a progress bar on w over the pending tasks with count,
// rate and ETA, or nil; done (already completed tasks) goes in the
// description so the rate and ETA reflect this process alone.
func newBar(w io.Writer, pending, done int) *progressbar.ProgressBar {
	if w == nil {
		return nil
	}
	desc := "eval"
	if done > 0 {
		desc = fmt.Sprintf("eval (resumed after %d)", done)
	}
	return progressbar.NewOptions(pending,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("task"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(30),
	)
}

// inFlight tracks the task ids being evaluated, for the watchdog.
type inFlight struct {
	mu  sync.Mutex
	ids map[string]time.Time
}

func newInFlight() *inFlight { return &inFlight{ids: map[string]time.Time{}} }

func (f *inFlight) add(id string) { f.mu.Lock(); f.ids[id] = time.Now(); f.mu.Unlock() }

func (f *inFlight) remove(id string) { f.mu.Lock(); delete(f.ids, id); f.mu.Unlock() }

func (f *inFlight) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.ids))
}

// abbrev joins the first n ids and says how many more there are.
func abbrev(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(" and %d more", len(ids)-n)
}

// truncTail returns the last n bytes of s.
func truncTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// ProgressLogInterval is how often Run logs progress when it has no
// progress bar.
const ProgressLogInterval = 30 * time.Second

// logProgress logs completed of total tasks with the rate and ETA.
func logProgress(log *slog.Logger, start time.Time, completed, total int) {
	el := time.Since(start)
	rate := float64(completed) / el.Seconds()
	eta := "unknown"
	if rate > 0 {
		eta = time.Duration(float64(total-completed) / rate * float64(time.Second)).Round(time.Second).String()
	}
	log.Info("progress", "done", completed, "of", total, "tasks_per_s", fmt.Sprintf("%.2f", rate), "eta", eta)
}

// embeddedScripts returns the names and contents of the harness's embedded
// Python (py/*.py), in name order, for the default evaluator version.
// ScriptsDigest identifies the harness's embedded Python scripts
// (py/*.py, the mutant check apart): [EvaluatorVersion] over their names
// and contents. Call records and verdicts made under another digest were
// made by another harness; the caches that keep them (a built pool's call
// records and C1 verdicts, the reference verdicts of a mutant-check file,
// an imported pool's reference check) make them again.
func ScriptsDigest() string { return scriptsDigest() }

var scriptsDigest = sync.OnceValue(func() string { return EvaluatorVersion(embeddedScripts()...) })

func embeddedScripts() [][]byte {
	var parts [][]byte
	names, _ := fs.Glob(pyFS, "py/*.py")
	slices.Sort(names)
	for _, n := range names {
		data, _ := fs.ReadFile(pyFS, n)
		parts = append(parts, []byte(n), data)
	}
	return parts
}
