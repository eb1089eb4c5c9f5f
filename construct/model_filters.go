package construct

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/progress"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
)

// Defaults of the C2 and C3 filters (docs/protocol.md §7 Stage 4).
const (
	DefaultFilterSamples     = 3   // samples per task for C2 and C3
	DefaultFilterTemperature = 0.8 // C2's sampling temperature; C3 uses it too
)

// A C2Record is one line of filters/c2/<model>.jsonl
// (docs/protocol.md §1.7): the task is novel for the model iff every
// sample failed.
type C2Record struct {
	TaskID      string `json:"task_id"`
	APIName     string `json:"api_name"`
	Model       string `json:"model"`
	Novel       bool   `json:"novel"`
	FailCount   int    `json:"fail_count"`
	SampleFails []bool `json:"sample_fails"`
}

// A C3Record is one line of filters/c3/<model>.jsonl (§1.7): the task is
// solvable iff at least one sample of the stronger model passed. Error is
// the first 200 chars of the first failing sample's stderr tail when none
// passed. NPassed is written by the protocol's code (not its released
// file). Solver names the stronger model (novelapi extension).
// RecheckPassed counts the samples that also pass the full evaluation
// harness with the call-record check (§7 Stage 4 "recheck"); nil when no
// expected call records were given.
type C3Record struct {
	TaskID        string  `json:"task_id"`
	APIName       string  `json:"api_name"`
	Passed        bool    `json:"passed"`
	Error         *string `json:"error"`
	NPassed       int     `json:"n_passed"`
	Solver        string  `json:"solver,omitempty"`
	RecheckPassed *int    `json:"recheck_passed,omitempty"`
}

// FilterConfig is what C2 and C3 share.
type FilterConfig struct {
	// Client calls the model (the backbone for C2, the stronger model for
	// C3); required.
	Client *llm.Client
	// Harness runs the samples; required. Give it NoLabels: the filters
	// need only pass/fail, and labelling may call a judge.
	Harness *evalharness.Harness
	// Model names the backbone whose filter file is written
	// (filters/c2/<Model>.jsonl, filters/c3/<Model>.jsonl, see [ModelSlug]);
	// "" means the client's model.
	Model string
	// Dir is the task pool's directory: filters/ is created under it.
	// Records already in the filter file are kept and their tasks skipped.
	Dir string
	// Samples per task; 0 means DefaultFilterSamples.
	Samples int
	// Temperature of the samples; 0 means DefaultFilterTemperature, a
	// negative value means greedy (0).
	Temperature float64
	// MaxTokens per sample; 0 means 2048.
	MaxTokens int
	// Workers is the number of tasks in flight; 0 means GOMAXPROCS.
	Workers int
	// Progress receives a progress bar; nil means none.
	Progress io.Writer
	// Log receives per-task failures; nil means slog.Default().
	Log *slog.Logger
}

func (c FilterConfig) withDefaults() (FilterConfig, error) {
	if c.Client == nil || c.Harness == nil || c.Dir == "" {
		return c, errors.New("construct: filter needs Client, Harness and Dir")
	}
	if c.Model == "" {
		c.Model = c.Client.Model()
	}
	if c.Samples <= 0 {
		c.Samples = DefaultFilterSamples
	}
	switch {
	case c.Temperature == 0:
		c.Temperature = DefaultFilterTemperature
	case c.Temperature < 0:
		c.Temperature = 0
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = 2048
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c, nil
}

// ModelSlug turns a model name into the file name of its filters and
// instance: the part after the last "/", with characters other than
// letters, digits, ".", "_" and "-" replaced by "-"
// ("Qwen/Qwen2.5-Coder-7B-Instruct" → "Qwen2.5-Coder-7B-Instruct").
func ModelSlug(model string) string {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	s := slugRE.ReplaceAllString(model, "-")
	if s == "" {
		return "model"
	}
	return s
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// C2Path and C3Path return the filter files of model under dir.
func C2Path(dir, model string) string {
	return filepath.Join(dir, "filters", "c2", ModelSlug(model)+".jsonl")
}

// C3Path is the C3 filter file of the backbone model under dir.
func C3Path(dir, model string) string {
	return filepath.Join(dir, "filters", "c3", ModelSlug(model)+".jsonl")
}

// FilterSummary counts the outcome of a filter run.
type FilterSummary struct {
	Tasks   int    `json:"tasks"`
	Kept    int    `json:"kept"`    // novel (C2) or solvable (C3)
	Resumed int    `json:"resumed"` // tasks already in the file
	Failed  int    `json:"failed"`  // tasks whose model call or sandbox run failed (no record; a rerun retries)
	Path    string `json:"path"`
}

// FilterC2 runs the novelty filter (docs/protocol.md §7 Stage 4, C2)
// for cfg's model: Samples samples at Temperature of the C2 prompt
// (bundles.C2Prompt, §2.3), each sample's first fenced block (or the whole
// response) run with the construction harness (§4.1 "Construction
// differences": setup_code + context_code as setup, no import line, no leaf
// binding, no reset, test = execution_test or mock_test). The task is novel
// iff every sample fails. One record per task is appended to
// filters/c2/<model>.jsonl; a rerun skips the tasks already there.
//
// The protocol samples with repetition_penalty 1.1 through the backbone's
// chat template; an OpenAI-compatible endpoint applies its own template and
// its default penalty. Model-call and sandbox failures leave the task
// without a record and are reported by the returned error after the others
// finish.
func FilterC2(ctx context.Context, tasks []*pool.Task, cfg FilterConfig) (FilterSummary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return FilterSummary{}, err
	}
	model := cfg.Model
	return runFilter(ctx, tasks, cfg, C2Path(cfg.Dir, model), "C2 "+model,
		func(r C2Record) (string, bool) { return r.TaskID, r.Novel },
		func(ctx context.Context, t *pool.Task) (C2Record, error) {
			prompt := bundles.C2Prompt(promptInput(t))
			passed, _, _, err := sampleAndRun(ctx, cfg, t, prompt, nil)
			if err != nil {
				return C2Record{}, err
			}
			rec := C2Record{TaskID: t.TaskID, APIName: t.APIName, Model: model, SampleFails: make([]bool, len(passed))}
			for i, p := range passed {
				rec.SampleFails[i] = !p
				if !p {
					rec.FailCount++
				}
			}
			rec.Novel = rec.FailCount == len(passed)
			return rec, nil
		})
}

// C3Config configures FilterC3.
type C3Config struct {
	FilterConfig
	// Bundles gives each task's bundle by api_name; required.
	Bundles map[string]*bundles.Bundle
	// Expected, when non-nil, also scores every sample with the full
	// evaluation harness including the call-record check (the protocol's
	// recheck, §7 Stage 4) into C3Record.RecheckPassed. The protocol draws
	// three fresh samples for the recheck; novelapi rescoring the C3
	// samples saves the calls.
	Expected map[string]*pool.ExpectedCalls
}

// FilterC3 runs the solvability filter (§7 Stage 4, C3): the stronger model
// (cfg.Client) answers the evaluation prompt with the Full bundle in the C3
// rendering ([C3Knowledge]), first-block extraction, the construction
// harness as in C2; the task is kept iff at least one sample passes.
// Records go to filters/c3/<cfg.Model>.jsonl, where Model names the
// backbone whose novel tasks are given (the protocol runs C3 per backbone).
// A task whose API has no bundle is an error.
func FilterC3(ctx context.Context, tasks []*pool.Task, cfg C3Config) (FilterSummary, error) {
	fc, err := cfg.FilterConfig.withDefaults()
	if err != nil {
		return FilterSummary{}, err
	}
	if cfg.FilterConfig.Model == "" {
		return FilterSummary{}, errors.New("construct: C3 needs Model, the backbone the file is for")
	}
	for _, t := range tasks {
		if cfg.Bundles[t.APIName] == nil {
			return FilterSummary{}, fmt.Errorf("construct: C3: task %s: no bundle for %s", t.TaskID, t.APIName)
		}
	}
	solver := cfg.Client.Model()
	return runFilter(ctx, tasks, fc, C3Path(fc.Dir, fc.Model), "C3 "+fc.Model,
		func(r C3Record) (string, bool) { return r.TaskID, r.Passed },
		func(ctx context.Context, t *pool.Task) (C3Record, error) {
			prompt := bundles.Prompt(promptInput(t), C3Knowledge(cfg.Bundles[t.APIName]))
			var exp *pool.ExpectedCalls
			if cfg.Expected != nil {
				exp = cfg.Expected[t.TaskID]
				if exp == nil {
					exp = &pool.ExpectedCalls{TaskID: t.TaskID, Status: "missing"}
				}
			}
			passed, firstErr, recheck, err := sampleAndRun(ctx, fc, t, prompt, exp)
			if err != nil {
				return C3Record{}, err
			}
			rec := C3Record{TaskID: t.TaskID, APIName: t.APIName, Solver: solver, RecheckPassed: recheck}
			for _, p := range passed {
				if p {
					rec.NPassed++
				}
			}
			rec.Passed = rec.NPassed > 0
			if !rec.Passed {
				e := firstErr
				if len(e) > 200 {
					e = e[:200]
				}
				rec.Error = &e
			}
			return rec, nil
		})
}

// C3Knowledge renders b for the C3 prompt (docs/protocol.md §2.3):
// "Import:\n    from {parent} import {leaf}\n\n", then S and E as in
// Render, then M, then the implementation headed
// "Implementation source (M_code):" instead of "Implementation source:".
func C3Knowledge(b *bundles.Bundle) string {
	parent, leaf := bundles.SplitQualname(b.APIName)
	var parts []string
	if s := bundles.RenderComponents(b, bundles.CompS|bundles.CompE|bundles.CompM); s != "" {
		parts = append(parts, s)
	}
	if b.Implementation != "" {
		parts = append(parts, "Implementation source (M_code):\n```python\n"+b.Implementation+"\n```")
	}
	head := ""
	if parent != "" {
		head = "Import:\n    from " + parent + " import " + leaf + "\n\n"
	}
	return head + strings.Join(parts, "\n\n")
}

func promptInput(t *pool.Task) bundles.PromptInput {
	return bundles.PromptInput{TaskID: t.TaskID, APIName: t.APIName, Description: t.Description, ContextCode: t.ContextCode}
}

// firstBlockRE is the construction pipeline's extraction (§3, last
// paragraph): the first ```(python)? block, else the whole response.
var firstBlockRE = regexp.MustCompile("(?s)```(?:python)?\n?(.*?)```")

// FirstBlock returns the code C2 and C3 run for a response: the body of
// its first fenced block (tag "python" or none), else the whole response.
func FirstBlock(response string) string {
	if m := firstBlockRE.FindStringSubmatch(response); m != nil {
		return m[1]
	}
	return response
}

// ConstructionTask returns the task as the C2/C3 harness runs it (§4.1
// "Construction differences"): setup is setup_code + context_code only
// (no import line, leaf binding, reset or call-record check) and the test
// is execution_test, or mock_test when it is empty. Evaluating it with
// evalharness.Harness.Evaluate without expected records runs exactly that
// script; the copy's Spy requirement is off because the stock monitor is
// part of its context.
func ConstructionTask(t *pool.Task) *pool.Task {
	c := *t
	off := false
	c.SpyRequired = &off
	c.SpyAPIs = nil
	setup := strings.TrimSpace(t.TestHarness.SetupCode)
	if setup == "" {
		setup = pool.StockMonitor(t.APIName)
	}
	c.ContextCode = setup + "\n\n" + t.ContextCode
	if strings.TrimSpace(c.TestHarness.ExecutionTest) == "" {
		c.TestHarness.ExecutionTest = t.TestHarness.MockTest
	}
	return &c
}

// sampleAndRun draws cfg.Samples answers to prompt and runs each with the
// construction harness. It returns per-sample pass, the first failing
// sample's error, and, when exp is non-nil, how many samples pass the full
// evaluation harness.
func sampleAndRun(ctx context.Context, cfg FilterConfig, t *pool.Task, prompt string, exp *pool.ExpectedCalls) ([]bool, string, *int, error) {
	resp, err := cfg.Client.Sample(ctx, []llm.Message{{Role: "user", Content: prompt}}, cfg.Samples, cfg.Temperature, cfg.MaxTokens)
	if err != nil {
		return nil, "", nil, fmt.Errorf("model %s: %w", cfg.Client.Model(), err)
	}
	ct := ConstructionTask(t)
	passed := make([]bool, len(resp.Texts))
	firstErr := ""
	var recheck *int
	if exp != nil {
		recheck = new(int)
	}
	for i, text := range resp.Texts {
		code := strings.TrimSpace(FirstBlock(text))
		v, err := cfg.Harness.Evaluate(ctx, ct, nil, "```python\n"+code+"\n```")
		if err != nil {
			return nil, "", nil, err
		}
		passed[i] = v.Passed
		if !v.Passed && firstErr == "" {
			firstErr = v.Status + ": " + v.Error
		}
		if exp != nil && exp.Status == pool.CallsOK {
			v, err := cfg.Harness.Evaluate(ctx, t, exp, text)
			if err != nil {
				return nil, "", nil, err
			}
			if v.Passed {
				*recheck++
			}
		}
	}
	return passed, firstErr, recheck, nil
}

// runFilter runs fn on every task not yet recorded in path and appends its
// record; id returns a record's task id and whether it counts as kept.
func runFilter[R any](ctx context.Context, tasks []*pool.Task, cfg FilterConfig, path, desc string,
	id func(R) (string, bool), fn func(context.Context, *pool.Task) (R, error)) (FilterSummary, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return FilterSummary{}, err
	}
	sum := FilterSummary{Tasks: len(tasks), Path: path}
	done := map[string]bool{}
	if _, err := os.Stat(path); err == nil {
		recs, _, err := jsonl.Read[R](path, jsonl.ReadOptions{SkipBad: true})
		if err != nil {
			return sum, fmt.Errorf("read %s for resume: %w", path, err)
		}
		for _, r := range recs {
			tid, kept := id(r)
			done[tid] = kept
		}
	}
	w, err := jsonl.OpenAppend[R](path)
	if err != nil {
		return sum, err
	}
	defer w.Close()
	var todo []*pool.Task
	for _, t := range tasks {
		if kept, ok := done[t.TaskID]; ok {
			sum.Resumed++
			if kept {
				sum.Kept++
			}
			continue
		}
		todo = append(todo, t)
	}
	bar := progress.New(cfg.Progress, len(todo), desc)
	var (
		mu    sync.Mutex
		first error
	)
	var g errgroup.Group
	g.SetLimit(cfg.Workers)
	for _, t := range todo {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			rec, err := fn(ctx, t)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				err = w.Write(rec)
			}
			if err != nil {
				if ctx.Err() == nil {
					sum.Failed++
					cfg.Log.Warn(desc+" failed", "task", t.TaskID, "err", err)
					if first == nil {
						first = fmt.Errorf("task %s: %w", t.TaskID, err)
					}
				}
			} else if _, kept := id(rec); kept {
				sum.Kept++
			}
			bar.Add(1)
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return sum, context.Cause(ctx)
	}
	if first != nil {
		return sum, fmt.Errorf("%s: %d of %d tasks failed (rerun to retry them); first: %w", desc, sum.Failed, len(todo), first)
	}
	return sum, nil
}
