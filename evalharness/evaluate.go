package evalharness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/pysyntax"
	"github.com/novelapi/novelapi/pool"
)

// ErrRefused reports a task the harness will not evaluate: its expected
// call records are missing or not "ok" (docs/protocol.md §1.4), or its test lacks
// the check marker.
var ErrRefused = errors.New("evalharness: task refused")

// ErrBadName reports an API name that is not a dotted Python name
// ("numpy.linalg.norm"); [Harness.CheckCode] refuses it.
var ErrBadName = errors.New("evalharness: not a dotted Python name")

// Evaluate extracts the code of one response (§3), runs it with the task's
// test in the task's environment (§4) and classifies a failure (§5).
//
// expected may be nil only for tasks that do not require the spy; a record
// whose status is not "ok" is refused (ErrRefused). The error is non-nil
// only for infrastructure failures and refused tasks; a failing completion
// is a Verdict with Passed false. Evaluate is safe for concurrent use.
func (h *Harness) Evaluate(ctx context.Context, task *pool.Task, expected *pool.ExpectedCalls, response string) (Verdict, error) {
	job, err := evalJob(task, expected)
	if err != nil {
		return Verdict{Status: pool.StatusInfraError, InfraError: err.Error()}, err
	}
	job.setResponse(response)
	env, err := h.environment(task)
	if err != nil {
		return Verdict{Status: pool.StatusInfraError, InfraError: err.Error()}, fmt.Errorf("task %s: %w", task.TaskID, err)
	}
	out, err := h.execWithRetry(ctx, env, job, task.Timeout())
	if err != nil {
		return Verdict{Status: pool.StatusInfraError, InfraError: out.Res.InfraError, Retried: out.Retried}, fmt.Errorf("task %s: %w", task.TaskID, err)
	}
	return h.verdict(ctx, task, out, true), nil
}

// evalJob assembles the evaluation script of task (§4.1) without the
// completion.
func evalJob(task *pool.Task, expected *pool.ExpectedCalls) (runnerJob, error) {
	var records = expected
	if task.SpyNeeded() {
		switch {
		case records == nil:
			return runnerJob{}, fmt.Errorf("%w: task %s has no expected call records", ErrRefused, task.TaskID)
		case records.Status != pool.CallsOK:
			return runnerJob{}, fmt.Errorf("%w: task %s has expected-call status %q, not ok", ErrRefused, task.TaskID, records.Status)
		}
	}
	var test string
	var err error
	if task.SpyNeeded() {
		test, err = spliceTest(task.TestHarness.ExecutionTest, records.Expected, true)
	} else {
		test = task.TestHarness.ExecutionTest
	}
	if err != nil {
		return runnerJob{}, fmt.Errorf("%w: task %s: %v", ErrRefused, task.TaskID, err)
	}
	leaf := task.Leaf()
	job := newRunnerJob(task, setupOptions{leafBinding: true})
	job.Secret = secretJob{
		Test:          test,
		ExecutionTest: task.TestHarness.ExecutionTest,
		InferArgv:     true,
		NormaliseTest: true,
		JudgeLeaf:     &leaf,
		Reference:     task.ReferenceSolution,
	}
	job.EntryPoint = task.EntryPoint
	job.Join = joinOf(task)
	if task.SpyNeeded() && task.SpyScope == pool.SpyScopeEntryPoint {
		job.Secret.EntryCheck = task.APIName
	}
	return job, nil
}

// taskDefect says why a run failed through a defect of the task rather
// than of the completion, or "": the judge could not run the task's import
// line or hidden setup, the task's test does not compile, the monitor could
// not spy a target (§4.4), the setup (import line, hidden setup, monitor,
// context) raised before the completion ran, or the test failed to import
// a module or name the environment lacks. Such a run is an
// INFRA_ERROR, excluded from n (docs/sandbox.md §2), and is not retried.
func taskDefect(out *runOutcome) string {
	r := &out.Recs
	if r.HarnessError != "" {
		return r.HarnessError
	}
	if s := r.Spy; s != nil && s.Private && !s.Installed && !out.SpyOptional {
		var why []string
		for _, k := range slices.Sorted(maps.Keys(s.Failed)) {
			why = append(why, k+" ("+s.Failed[k]+")")
		}
		if len(why) == 0 {
			why = append(why, "no reason reported")
		}
		return "the target-API spy could not be installed for " + strings.Join(why, ", ")
	}
	e := r.Exception
	switch {
	case e == nil:
	case e.Phase == "setup":
		return clip("the task's setup raised before the completion ran: " + e.Exc + ": " + strings.TrimSpace(e.Msg))
	case e.Phase == "test" && !e.Remote && (e.Exc == "ImportError" || e.Exc == "ModuleNotFoundError"):
		return clip("the task's test imports what the environment lacks: " + e.Exc + ": " + strings.TrimSpace(e.Msg))
	}
	return ""
}

// runStatus decides the docs/sandbox.md §4.1 verdict of a run.
func runStatus(out runOutcome) string {
	res, r := out.Res, out.Recs
	e := r.Exception
	// clean: the run ended as a passing run ends, whatever limit it met
	// on the way (a fork the pids limit refused and the completion caught).
	clean := res.ExitCode == 0 && res.Signal == "" && r.DoneOK && r.Tamper == "" && e == nil
	switch {
	case res.InfraError != "" || taskDefect(&out) != "":
		return pool.StatusInfraError
	case res.TimedOut:
		return pool.StatusTimeout
	case res.OOMKilled || (e != nil && e.Exc == "MemoryError"):
		return pool.StatusMemoryLimit
	case res.OutputLimitHit || outFilled(out):
		return pool.StatusOutputLimit
	case res.LimitHit == "cpu" || res.LimitHit == "fsize" || ((res.PIDLimitHit || res.LimitHit == "pids") && !clean):
		return pool.StatusResourceLimit
	case res.Signal != "":
		return pool.StatusCrash
	case r.Tamper != "" || (res.ExitCode == 0) != r.DoneOK:
		return pool.StatusHarnessTamper
	case e == nil:
		return pool.StatusPass
	case e.Phase == "compile" || (e.Phase == "solution" && (e.Exc == "ImportError" || e.Exc == "ModuleNotFoundError")):
		return pool.StatusCompileError
	case e.Exc == "AssertionError" && (strings.Contains(e.Msg, "solution did not call target API") || strings.Contains(e.Msg, "target-API spy failed to install")):
		return pool.StatusAPINotCalled
	case e.Exc == "AssertionError" && (e.Phase == "test" || e.Phase == "all"):
		return pool.StatusWrongAnswer
	}
	return pool.StatusRuntimeError
}

// outFilled reports whether the run's records are missing or broken while
// /out was full: the program filled the record channel (docs/sandbox.md
// §4.1 item 4), which is an output limit, not tampering.
func outFilled(out runOutcome) bool {
	return out.Res.OutFull && (out.Recs.Tamper != "" || !out.Recs.Done)
}

// tamperReason says why a HARNESS_TAMPER run cannot be trusted.
func tamperReason(out runOutcome) string {
	switch r := out.Recs; {
	case r.Tamper != "" && out.Res.ExitCode == 0 && !r.Done:
		return "the process exited 0 before the runner finished (" + r.Tamper + "; sys.exit or os._exit in the completion?)"
	case r.Tamper != "":
		return r.Tamper
	case out.Res.ExitCode == 0:
		return "exit status 0 without the runner's ok record"
	}
	return fmt.Sprintf("exit status %d with the runner's ok record", out.Res.ExitCode)
}

// verdict turns a run into a Verdict; classify false leaves the label to
// the caller.
func (h *Harness) verdict(ctx context.Context, task *pool.Task, out runOutcome, classify bool) Verdict {
	res, r := out.Res, out.Recs
	v := Verdict{
		Status:    runStatus(out),
		Retried:   out.Retried,
		Wall:      res.Wall,
		Code:      r.Code,
		Written:   r.Written,
		Unrenamed: r.Unrenamed,
		Joined:    r.Joined,
		Executed:  r.phaseDone("solution") && (r.Exception == nil || r.Exception.Phase != "all"),
	}
	spy := r.Spy
	if task.SpyScope == pool.SpyScopeEntryPoint {
		spy = r.EntrySpy
	}
	if spy != nil && spy.Count > 0 {
		v.SpyCalls = spy.Count
		v.TargetCalled = true
	}
	if spy != nil && task.SpyNeeded() {
		v.CalledAPIs = calledAPIs(task.Targets(), spy)
	}
	v.SpyOff = !task.SpyNeeded()
	v.TargetRaised = r.Exception != nil && r.Exception.Target != nil
	if why := taskDefect(&out); why != "" && res.InfraError == "" {
		v.InfraError, v.TaskDefect = "task defect: "+why, true
		v.Error = truncateRunes(v.InfraError, 500)
		return v
	}
	v.Passed = v.Status == pool.StatusPass && res.ExitCode == 0
	if v.Status == pool.StatusCrash || v.Status == pool.StatusResourceLimit {
		v.Signal = res.Signal
		if n := r.CandidateSignal; n > 0 && res.Signal != "" {
			v.Signal = fmt.Sprintf("%s (signal %d)", res.Signal, n)
		}
	}
	if v.Passed {
		if !h.cfg.NoLabels {
			v.Label, v.Rule, v.Rationale = pool.LabelPass, "pass", "exited 0 with complete records"
		}
		return v
	}
	stderr := truncateRunes(string(res.Stderr), StderrKeep)
	f := out.facts(task, stderr)
	f.Status = v.Status
	if v.Status == pool.StatusHarnessTamper {
		f.Tamper = tamperReason(out)
	}
	if res.TimedOut {
		f.ExcType, f.Stderr = "Timeout", ""
	} else {
		f.ExcType = exceptionType(stderr)
		// The user reads lines of the completion, not of the flat script;
		// the classifier and the judge keep the protocol's stderr.
		v.Error = errorSnippet(userLines(r.Layout, stderr))
	}
	v.ExceptionType = f.ExcType
	if h.cfg.NoLabels || !classify {
		return v
	}
	c := h.classify(ctx, f)
	v.Label, v.Rule, v.Rationale = c.Label, c.Rule, c.Rationale
	// The PriCoder-style counts come from the run's records under either
	// taxonomy.
	if rc, ok := runtimeClass(f); ok && f.Tamper == "" {
		c.Nonexistent, c.SigError = rc.Nonexistent, rc.SigError
	}
	switch {
	case v.Signal != "":
		v.Rationale = clip("killed by " + v.Signal + "; " + c.Rationale)
	case v.Status == pool.StatusOutputLimit && outFilled(out):
		v.Rationale = clip(fmt.Sprintf("the program filled /out (%d bytes, %d files) and the runner could not write its records; ", res.Limits.OutSize, res.Limits.OutFiles) + c.Rationale)
	}
	if c.Nonexistent {
		v.NonexistentCalls = 1
	}
	if c.SigError {
		v.SignatureErrors = 1
	}
	return v
}

// classify labels a failure (§5.2). HARNESS_TAMPER has its own rule
// first. The runtime taxonomy (the default) decides from the run's records
// (runtimeClass); where they hold no evidence about the target (Weak, or
// nothing recorded) the judge decides when configured, else that label or
// what the spy saw. The protocol taxonomy is §5.2 exactly: rules (a)-(c)
// on the kept stderr (skipped on timeouts), the judge, the textual
// fallback.
func (h *Harness) classify(ctx context.Context, f *failureFacts) classification {
	if f.Tamper != "" {
		return tamperClass(f)
	}
	if h.cfg.Taxonomy != TaxonomyProtocol {
		c, ok := runtimeClass(f)
		if ok && !c.Weak {
			return c
		}
		if h.cfg.Judge != nil {
			if jc, jok, _ := h.judge(ctx, f, f.judgeFields()); jok {
				return jc
			}
		}
		if ok {
			return c
		}
		if f.targetCalled() || !f.Task.SpyNeeded() {
			return classification{Label: pool.LabelWrongLogic, Rule: "runtime:fallback", Rationale: "no recorded evidence points at the target API's use; the program is wrong"}
		}
		return classification{Label: pool.LabelWrongAPISelection, Rule: "runtime:fallback", Rationale: clip("the spy saw no call of " + f.Task.APIName)}
	}
	if !f.TimedOut {
		if c, ok := protocolRules(f); ok {
			return c
		}
	}
	why := "no deterministic rule matched"
	if f.TimedOut {
		why = "timed out"
	}
	if h.cfg.Judge != nil {
		c, ok, reason := h.judge(ctx, f, f.judgeFields())
		if ok {
			return c
		}
		c = fallbackClass(f, why+"; "+reason)
		c.Rule = "judge-fallback"
		return c
	}
	return fallbackClass(f, why)
}

// judgeFields are the AST fields of the judge prompt the runner computed.
func (f *failureFacts) judgeFields() judgeFields {
	if f.Recs != nil && f.Recs.Judge != nil {
		return *f.Recs.Judge
	}
	return judgeFields{}
}

// CheckCode runs agent code in the library's environment with the spy on
// apiName (the MCP check_code tool): no test and no call-record check.
// Code containing fences is extracted first (§3). instances are further
// public paths of apiName whose calls count as calls of it (a class's
// instances, bundles.Provenance.Instances: "scipy.stats.triang" for
// "scipy.stats.distributions.triang_gen"; "scipy.stats.irwinhall.fit" for
// the method "scipy.stats.distributions.irwinhall_gen.fit"); a path that
// does not resolve in the environment is skipped, and one that is not a
// dotted Python name is ignored. The error is non-nil only for
// infrastructure failures and for an apiName that is not a dotted Python
// name ([ErrBadName]): names are pasted into the setup's import lines.
func (h *Harness) CheckCode(ctx context.Context, code, apiName, library string, instances ...string) (CheckResult, error) {
	return h.CheckCodeIn(ctx, "", code, apiName, library, instances...)
}

// CheckCodeIn is [Harness.CheckCode] in the environment called env (the
// layered environment of a private library, docs/private.md §2); "" means
// the library's environment.
func (h *Harness) CheckCodeIn(ctx context.Context, env, code, apiName, library string, instances ...string) (CheckResult, error) {
	if !pysyntax.IsDottedName(apiName) {
		return CheckResult{}, fmt.Errorf("%w: api_name %q", ErrBadName, apiName)
	}
	task := &pool.Task{TaskID: "check_code", APIName: apiName, Library: library, Environment: env}
	leaf := task.Leaf()
	o := setupOptions{leafBinding: true}
	for _, in := range instances {
		if in != "" && in != apiName && pysyntax.IsDottedName(in) {
			o.aliases = append(o.aliases, spyAlias{Path: in, Target: apiName})
		}
	}
	job := newRunnerJob(task, o)
	job.Secret.JudgeLeaf = &leaf
	if strings.Contains(code, "```") {
		plan := planExtraction(code)
		job.Plan = &plan
	} else {
		job.Code = code
	}
	environment, err := h.envFor(library, env)
	if err != nil {
		return CheckResult{Status: pool.StatusInfraError}, err
	}
	out, err := h.execJob(ctx, environment, job, task.Timeout())
	if err != nil {
		return CheckResult{Status: pool.StatusInfraError}, err
	}
	// The agent named the target: a name that cannot be spied is its
	// answer (SpyInstalled false), not a defect of a task.
	out.SpyOptional = true
	v := h.verdict(ctx, task, out, false)
	cr := CheckResult{
		Ran:          v.Status == pool.StatusPass,
		TargetCalled: v.TargetCalled,
		Calls:        v.SpyCalls,
		Status:       v.Status,
		Signal:       v.Signal,
		Stdout:       lastRunes(string(out.Res.Stdout), 2000),
		StdoutCut:    out.Res.StdoutDropped,
		Stderr:       lastRunes(userLines(out.Recs.Layout, string(out.Res.Stderr)), 2000),
	}
	if s := out.Recs.Spy; s != nil {
		cr.SpyInstalled, cr.SpyReported = s.Installed, true
	}
	if e := out.Recs.Exception; e != nil {
		cr.ExceptionType, cr.Message = e.Exc, truncateRunes(userLines(out.Recs.Layout, e.Msg), 500)
		cr.Where, cr.Line = out.Recs.raisedAt()
	} else if v.Status == pool.StatusTimeout {
		cr.ExceptionType = "Timeout"
		cr.Message = fmt.Sprintf("no result within the %s wall limit (runaway loop, or slow code)", task.Timeout())
	}
	switch v.Status {
	case pool.StatusHarnessTamper:
		cr.Reason = "harness tamper: " + tamperReason(out)
	case pool.StatusTimeout:
		cr.Reason = "timed out: " + cr.Message
	case pool.StatusCompileError:
		cr.Reason = "the code does not compile or import: " + cr.ExceptionType + ": " + cr.Message
	case pool.StatusInfraError:
		cr.Reason = "no verdict: " + v.InfraError
	case pool.StatusCrash, pool.StatusResourceLimit:
		if v.Signal != "" {
			cr.Reason = "killed by " + v.Signal
		}
	case pool.StatusOutputLimit:
		if outFilled(out) {
			cr.Reason = fmt.Sprintf("the code filled /out (%d bytes, %d files)", out.Res.Limits.OutSize, out.Res.Limits.OutFiles)
		}
	}
	switch {
	case v.Status == pool.StatusInfraError:
	case v.Status == pool.StatusHarnessTamper:
		c := tamperClass(&failureFacts{Task: task, Recs: &out.Recs, Tamper: tamperReason(out)})
		cr.Label, cr.Rationale = c.Label, c.Rationale
	case cr.Ran && cr.TargetCalled:
		cr.Label, cr.Rationale = pool.LabelPass, "ran and called "+apiName
	case cr.Ran:
		cr.Label, cr.Rationale = pool.LabelWrongAPISelection, "ran but never called "+apiName
	default:
		stderr := truncateRunes(string(out.Res.Stderr), StderrKeep)
		f := out.facts(task, stderr)
		f.ExcType = exceptionType(stderr)
		c := h.classify(ctx, f)
		cr.Label, cr.Rationale = c.Label, c.Rationale
	}
	return cr, nil
}

// calledAPIs lists the targets with at least one call in spy, in the
// task's target order. A record without per-API counts (one target, or a
// runner predating them) credits the first target with the whole count.
func calledAPIs(targets []string, spy *spyRecord) []string {
	var out []string
	if len(spy.APIs) == 0 {
		if spy.Count > 0 && len(targets) > 0 {
			out = append(out, targets[0])
		}
		return out
	}
	for _, t := range targets {
		if spy.APIs[t] > 0 {
			out = append(out, t)
		}
	}
	return out
}
