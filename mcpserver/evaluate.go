package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
)

// EvalConfig configures the evaluate tool. The zero value evaluates
// predictions given with the call against a task pool given with the call,
// writing runs under os.TempDir()/novelapi-runs.
type EvalConfig struct {
	// TasksPath is the default task pool (tasks.jsonl, docs/protocol.md §1.3); ""
	// means every call must give tasks_path.
	TasksPath string
	// ExpectedPath holds the reference call records (docs/protocol.md §1.4); ""
	// means none.
	ExpectedPath string
	// RunsDir receives one directory per run; "" means
	// os.TempDir()/novelapi-runs.
	RunsDir string
	// Workers bounds tasks evaluated at once; 0 means the harness default
	// (number of CPUs).
	Workers int
	// Generate produces predictions with the configured model endpoint and
	// retrieval configuration; nil means evaluate only accepts predictions.
	Generate func(ctx context.Context, r GenerateRequest) ([]*pool.Prediction, error)
}

// A GenerateRequest asks the configured model for predictions.
type GenerateRequest struct {
	Tasks     []*pool.Task
	Condition string // knowledge condition (docs/protocol.md §2.1), "" for the default
	Retrieval string // "oracle" (the task's own bundle) or "retrieved" (top-k from the index); "" default
}

var evalParams = []param{
	{name: "predictions", kind: "array", aliases: []string{"completions", "responses", "preds"}},
	{name: "predictions_path", kind: "string", aliases: []string{"predictionsPath", "predictions_file", "preds_path"}},
	{name: "tasks_path", kind: "string", aliases: []string{"tasksPath", "tasks", "tasks_file", "pool"}},
	{name: "library", kind: "string", aliases: searchParams[1].aliases},
	{name: "condition", kind: "string", aliases: renderParams[1].aliases},
	{name: "limit", kind: "integer", aliases: []string{"k", "n", "max_tasks", "maxTasks", "count"}},
	{name: "use_model", kind: "boolean", aliases: []string{"model", "generate", "useModel"}},
	{name: "retrieval", kind: "string", aliases: []string{"knowledge_source", "source"}},
	{name: "run_name", kind: "string", aliases: []string{"name", "run", "runName", "out"}},
}

// MaxInlinePredictions bounds predictions given inline.
const MaxInlinePredictions = 5000

func (s *Server) evaluateTool() mcp.Tool {
	openWorld := s.cfg.Eval.Generate != nil
	return mcp.NewTool("evaluate",
		mcp.WithDescription(`Evaluate completions on the novel-API task pool in sandboxes, exactly as NovelAPIBench does: each completion is run with the task's test and a spy on the target API, and scored pass/fail with a failure label (an error result, with nothing_judged set, when no task could be judged because every one hit an infrastructure error). Give predictions inline ([{"task_id": "...", "samples": ["<completion>"]}]) or by path (predictions.jsonl), or set use_model to have the server's configured model endpoint generate them. Filter the pool by library, condition and limit. Sends progress notifications, can be cancelled (completed results are kept; the same call resumes), and returns pass@1, exec@1, failure-label counts and the path of the report. Slow: seconds per task.`),
		mcp.WithArray("predictions", mcp.Description(`Inline predictions: objects {"task_id", "samples": [completion, ...]} (or "completion": "..." for one sample). At most 5000.`),
			mcp.Items(map[string]any{"type": "object"})),
		mcp.WithString("predictions_path", mcp.Description(`Path of a predictions.jsonl file on the server's machine, under its data, runs or task directory (or a directory the server allows with --allow-path).`)),
		mcp.WithString("tasks_path", mcp.Description(`Task pool (tasks.jsonl) on the server's machine, under the same directories as predictions_path; default: the server's configured pool.`)),
		mcp.WithString("library", mcp.Description(`Only tasks of this library.`)),
		mcp.WithString("condition", mcp.Description(`Knowledge condition (none, S, E, M, C, S+E, ..., Full): recorded on the results, selects predictions whose cell matches, and is the condition used with use_model.`)),
		mcp.WithInteger("limit", mcp.Description(`Evaluate at most this many tasks (after filtering).`)),
		mcp.WithBoolean("use_model", mcp.Description(`Generate the predictions with the server's configured model endpoint instead of taking them from the call.`)),
		mcp.WithString("retrieval", mcp.Description(`With use_model: "oracle" (the task's own bundle) or "retrieved" (top-5 chunks from the index).`), mcp.Enum("oracle", "retrieved")),
		mcp.WithString("run_name", mcp.Description(`Name of the run directory under the server's runs directory; default: derived from the arguments, so repeating a call resumes it.`)),
		// Writes a run directory (not read-only) but never deletes or
		// overwrites results (not destructive); repeating a call resumes
		// the same directory (idempotent); open world only when it calls
		// a model endpoint.
		annotate("Evaluate completions", false, false, true, openWorld),
	)
}

// evalOut is evaluate's structuredContent.
type evalOut struct {
	RunDir     string              `json:"run_dir"`
	ReportMD   string              `json:"report_md,omitempty"`
	ReportHTML string              `json:"report_html,omitempty"`
	Tasks      int                 `json:"tasks"`
	Summary    evalharness.Summary `json:"summary"`
	// TestCheck reports the check of the evaluated tasks' tests
	// (docs/mutants.md §3): flagged tasks' verdicts cannot be trusted.
	TestCheck *evalharness.PoolCheck `json:"test_check"`
	// NothingJudged is set, and the result is an error result, when no
	// evaluated task could be judged (every one an infrastructure error):
	// the summary's rates are then over no task and mean nothing. It says
	// why, naming the first failed task ('eval run' exits non-zero then).
	NothingJudged string `json:"nothing_judged,omitempty"`
}

type evalReq struct {
	preds                       []*pool.Prediction
	predsPath, tasksPath        string
	library, condition, runName string
	retrieval                   string
	limit                       int
	useModel                    bool
}

func parseEval(raw map[string]any) (evalReq, error) {
	a, err := bindArgs("evaluate", raw, evalParams)
	if err != nil {
		return evalReq{}, err
	}
	var r evalReq
	for _, f := range []struct {
		name string
		dst  *string
	}{{"predictions_path", &r.predsPath}, {"tasks_path", &r.tasksPath}, {"library", &r.library},
		{"condition", &r.condition}, {"run_name", &r.runName}, {"retrieval", &r.retrieval}} {
		if *f.dst, err = a.str(f.name, 4096); err != nil {
			return r, err
		}
	}
	if r.limit, err = a.integer("limit", 0); err != nil {
		return r, err
	}
	if r.useModel, err = a.boolean("use_model", false); err != nil {
		return r, err
	}
	if r.condition != "" {
		c, err := bundles.ParseCondition(r.condition)
		if err != nil {
			return r, argErrorf("evaluate: %v", err)
		}
		r.condition = string(c)
	}
	if r.retrieval != "" && r.retrieval != "oracle" && r.retrieval != "retrieved" {
		return r, argErrorf("evaluate: retrieval must be \"oracle\" or \"retrieved\", got %q", r.retrieval)
	}
	if v, ok := a.m["predictions"]; ok {
		list, ok := v.([]any)
		if !ok {
			return r, argErrorf("evaluate: predictions must be an array of objects, got %s", jsonType(v))
		}
		if len(list) > MaxInlinePredictions {
			return r, argErrorf("evaluate: %d inline predictions; the limit is %d (use predictions_path)", len(list), MaxInlinePredictions)
		}
		for i, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				return r, argErrorf("evaluate: predictions[%d] must be an object, got %s", i, jsonType(e))
			}
			p, err := decodePrediction(m)
			if err != nil {
				return r, argErrorf("evaluate: predictions[%d]: %v", i, err)
			}
			r.preds = append(r.preds, p)
		}
	}
	n := 0
	for _, given := range []bool{len(r.preds) > 0, r.predsPath != "", r.useModel} {
		if given {
			n++
		}
	}
	if n != 1 {
		return r, argErrorf("evaluate: give exactly one of predictions (inline), predictions_path, or use_model=true")
	}
	return r, nil
}

// decodePrediction accepts {"task_id", "samples": [...]} and the one-sample
// forms {"task_id", "completion"|"response"|"code": "..."}.
func decodePrediction(m map[string]any) (*pool.Prediction, error) {
	for _, k := range []string{"completion", "response", "code", "sample"} {
		if v, ok := m[k]; ok {
			if _, has := m["samples"]; !has {
				m["samples"] = []any{v}
			}
			delete(m, k)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var p pool.Prediction
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("want {\"task_id\": string, \"samples\": [string]}: %v", err)
	}
	if p.TaskID == "" {
		return nil, errors.New("task_id is required")
	}
	if len(p.Samples) == 0 {
		return nil, errors.New("samples is empty")
	}
	return &p, nil
}

func (s *Server) handleEvaluate(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r, err := parseEval(req.GetArguments())
	if err != nil {
		return toolError(err)
	}
	if r.useModel && s.cfg.Eval.Generate == nil {
		return mcp.NewToolResultError("evaluate: no model endpoint is configured on this server; pass predictions or predictions_path"), nil
	}
	tasksPath := r.tasksPath
	if tasksPath != "" { // an agent-given path must lie under the read roots (paths.go)
		if tasksPath, err = s.checkReadPath("evaluate", "tasks_path", tasksPath); err != nil {
			return toolError(err)
		}
	}
	if r.predsPath != "" {
		if r.predsPath, err = s.checkReadPath("evaluate", "predictions_path", r.predsPath); err != nil {
			return toolError(err)
		}
	}
	if tasksPath == "" {
		tasksPath = s.cfg.Eval.TasksPath
	}
	if tasksPath == "" {
		return mcp.NewToolResultError("evaluate: no task pool configured on this server; pass tasks_path"), nil
	}
	var invalid int
	// The reference call records: the server's, else expected_calls.jsonl
	// beside the task pool (as `novelapi eval run` does).
	expectedPath := s.cfg.Eval.ExpectedPath
	if r.tasksPath != "" && fileExists(filepath.Join(filepath.Dir(tasksPath), "expected_calls.jsonl")) {
		expectedPath = "" // OpenPool takes the one beside the agent's pool
	}
	tp, err := evalharness.OpenPool(evalharness.OpenConfig{Tasks: tasksPath, Expected: expectedPath,
		Load: pool.LoadOptions{SkipInvalid: true, Invalid: func(error) { invalid++ }}})
	if err != nil {
		return mcp.NewToolResultError(loadError("evaluate", "tasks_path", tasksPath, err)), nil
	}
	tasks := tp.Tasks
	var lib string
	if r.library != "" {
		lib = r.library
		if _, cat, err := s.store(ctx); err == nil {
			if k, ok := cat.library(r.library); ok {
				lib = k
			}
		}
	}
	var selected []*pool.Task
	for _, t := range tasks {
		if lib != "" && normLibrary(t.Library) != normLibrary(lib) {
			continue
		}
		selected = append(selected, t)
	}

	var preds []*pool.Prediction
	switch {
	case len(r.preds) > 0:
		preds = r.preds
	case r.predsPath != "":
		if preds, err = pool.LoadPredictions(r.predsPath); err != nil {
			return mcp.NewToolResultError(loadError("evaluate", "predictions_path", r.predsPath, err)), nil
		}
	}
	// Keep the tasks that have a prediction (all of them with use_model),
	// in pool order, then apply limit.
	if !r.useModel {
		have := map[string]bool{}
		for _, p := range preds {
			if r.condition == "" || p.Cell == "" || p.Cell == r.condition {
				have[p.TaskID] = true
			}
		}
		kept := selected[:0:0]
		for _, t := range selected {
			if have[t.TaskID] {
				kept = append(kept, t)
			}
		}
		selected = kept
	}
	if r.limit > 0 && len(selected) > r.limit {
		selected = selected[:r.limit]
	}
	if len(selected) == 0 {
		return mcp.NewToolResultError(fmt.Sprintf("evaluate: no task to evaluate: %d tasks in %s, none left after the filters (library %q, condition %q) and matching predictions", len(tasks), tasksPath, r.library, r.condition)), nil
	}
	inPool := map[string]*pool.Task{}
	for _, t := range selected {
		inPool[t.TaskID] = t
	}

	h, res := s.harnessResult(ctx)
	if res != nil {
		return res, nil
	}
	if !s.evalMu.TryLock() {
		return mcp.NewToolResultError("evaluate: another evaluation is running on this server; wait for it to finish"), nil
	}
	defer s.evalMu.Unlock()

	prog := newProgress(ctx, req)
	if r.useModel {
		prog.send(0, 0, fmt.Sprintf("generating completions for %d tasks", len(selected)))
		preds, err = s.cfg.Eval.Generate(ctx, GenerateRequest{Tasks: selected, Condition: r.condition, Retrieval: r.retrieval})
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return mcp.NewToolResultError("evaluate: generate completions: " + err.Error()), nil
		}
	}
	var runPreds []*pool.Prediction
	total := 0
	for _, p := range preds {
		if inPool[p.TaskID] != nil && (r.condition == "" || p.Cell == "" || p.Cell == r.condition) {
			runPreds = append(runPreds, p)
			inPool[p.TaskID] = nil // one prediction per task
			total += len(p.Samples)
		}
	}

	runsDir := s.cfg.Eval.RunsDir
	if runsDir == "" {
		runsDir = filepath.Join(os.TempDir(), "novelapi-runs")
	}
	name := r.runName
	if name == "" {
		name = defaultRunName(r, tasksPath, runPreds)
	}
	dir := filepath.Join(runsDir, sanitizeName(name))

	counter := &progressEvaluator{inner: h, total: total, prog: prog}
	prog.send(0, total, fmt.Sprintf("checking the tests of %d tasks (reference and mutants), then evaluating them (%d samples) into %s", len(runPreds), total, dir))
	pc, summary, err := tp.Evaluate(ctx, evalharness.EvaluateConfig{Harness: h, Run: evalharness.RunConfig{
		Tasks: selected, Predictions: runPreds, OutDir: dir, Workers: s.cfg.Eval.Workers,
		Condition: r.condition, Harness: counter, PredictionsPath: r.predsPath,
		ClassifyFailures: true, Log: s.log,
	}})
	if me, ok := errors.AsType[*evalharness.MissingExpectedError](err); ok {
		return mcp.NewToolResultError(fmt.Sprintf("evaluate: %s: the call-record check cannot run; build the tasks with their C1 records (without --no-c1) or give the server an expected_calls.jsonl", me.Message())), nil
	}
	prog.flush()
	if err != nil {
		if ctx.Err() != nil {
			s.log.Info("evaluate cancelled", "dir", dir, "done", counter.done.Load())
			return nil, context.Cause(ctx)
		}
		if errors.Is(err, evalharness.ErrMetaMismatch) {
			return mcp.NewToolResultError(fmt.Sprintf("evaluate: %s holds a different evaluation; choose another run_name", dir)), nil
		}
		if errors.Is(err, evalharness.ErrRunInUse) {
			return mcp.NewToolResultError(fmt.Sprintf("evaluate: %v; choose another run_name", err)), nil
		}
		return nil, fmt.Errorf("evaluate run %s: %w", dir, err)
	}
	out := evalOut{RunDir: dir, Tasks: len(runPreds), Summary: summary, TestCheck: pc}
	if err := evalharness.Report(dir); err != nil {
		s.log.Warn("evaluate: report not written", "dir", dir, "err", err)
	} else {
		out.ReportMD, out.ReportHTML = filepath.Join(dir, pool.ReportMDFile), filepath.Join(dir, pool.ReportHTML)
	}
	var sb strings.Builder
	if err := evalharness.NothingJudged(dir, summary); err != nil {
		out.NothingJudged = err.Error()
		fmt.Fprintf(&sb, "evaluate: %v. The scores below are over no task.\n", err)
	}
	pc.WriteReport(&sb, 50)
	fmt.Fprintf(&sb, "Evaluated %d tasks: pass@1 %.1f%% (%d/%d), exec@1 %.1f%%.\n", summary.N, 100*summary.PassAt1, summary.Passed, summary.N, 100*summary.ExecAt1)
	if len(summary.Labels) > 0 {
		b, _ := json.Marshal(summary.Labels)
		fmt.Fprintf(&sb, "Labels: %s\n", b)
	}
	if invalid > 0 {
		fmt.Fprintf(&sb, "%d invalid tasks in %s were skipped.\n", invalid, tasksPath)
	}
	fmt.Fprintf(&sb, "Run directory: %s\n", dir)
	if out.ReportMD != "" {
		fmt.Fprintf(&sb, "Report: %s (and %s)\n", out.ReportMD, out.ReportHTML)
	}
	result := mcp.NewToolResultStructured(out, sb.String())
	result.IsError = out.NothingJudged != ""
	return result, nil
}

// progressEvaluator counts evaluated samples and reports them as MCP
// progress notifications.
type progressEvaluator struct {
	inner evalharness.Evaluator
	total int
	done  atomic.Int64
	prog  *progress
}

func (p *progressEvaluator) Evaluate(ctx context.Context, t *pool.Task, e *pool.ExpectedCalls, response string) (evalharness.Verdict, error) {
	v, err := p.inner.Evaluate(ctx, t, e, response)
	n := int(p.done.Add(1))
	p.prog.send(min(n, p.total), p.total, fmt.Sprintf("%d/%d samples evaluated (last: %s)", min(n, p.total), p.total, t.TaskID))
	return v, err
}

// progress sends notifications/progress for one call, if the client asked
// for them with a progress token.
type progress struct {
	ctx   context.Context
	srv   *server.MCPServer
	token mcp.ProgressToken
	sent  bool
}

func newProgress(ctx context.Context, req mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx, srv: server.ServerFromContext(ctx)}
	if req.Params.Meta != nil { // nil unless the client sent _meta
		p.token = req.Params.Meta.ProgressToken
	}
	return p
}

func (p *progress) send(done, total int, msg string) {
	if p.token == nil || p.srv == nil {
		return
	}
	params := map[string]any{"progressToken": p.token, "progress": done, "message": msg}
	if total > 0 {
		params["total"] = total
	}
	// A full notification buffer is not a reason to fail the run.
	_ = p.srv.SendNotificationToClient(p.ctx, "notifications/progress", params)
	p.sent = true
}

// flush works around streamable HTTP dropping a notification sent just
// before the handler returns (in mcp-go v1.2.1 the forwarder of the last
// notification races the response writer).
func (p *progress) flush() {
	if p.sent {
		time.Sleep(5 * time.Millisecond)
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._+-]+`)

func sanitizeName(s string) string {
	s = strings.Trim(unsafeName.ReplaceAllString(s, "_"), "._")
	if s == "" {
		s = "run"
	}
	return truncate(s, 100)
}

// defaultRunName derives a stable run name from what is evaluated, so that
// repeating a call resumes its run.
func defaultRunName(r evalReq, tasksPath string, preds []*pool.Prediction) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%v\x00%s\x00", tasksPath, r.library, r.condition, r.limit, r.useModel, r.retrieval)
	for _, p := range preds {
		b, _ := json.Marshal(p)
		h.Write(b)
	}
	return "mcp-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}
