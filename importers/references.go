package importers

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/schollz/progressbar/v3"
)

//go:embed py/*.py
var pyFS embed.FS

// CheckConfig configures [CheckReferences].
type CheckConfig struct {
	// Runner executes the checks (required).
	Runner sandbox.Runner
	// Store resolves each task's Environment (required).
	Store *debenv.Store
	// Workers is the number of tasks checked at once; 0 means 1.
	Workers int
	// ProgramTimeout bounds one program (one unit test) in the original
	// assembly; 0 means 15 s, the original test bed's timeout
	// (CodeUpdateArena src/utils/code.py concat_and_exec).
	ProgramTimeout time.Duration
	// Progress receives a progress bar; nil means none.
	Progress io.Writer
	// Log receives diagnostics; nil means slog.Default().
	Log *slog.Logger
	// OnResult, when set, receives each result as it completes (from one
	// goroutine at a time); an error stops the check.
	OnResult func(CheckResult) error
}

// An Outcome is the result of a reference under one assembly.
type Outcome struct {
	Passed bool `json:"passed"`
	// Failed names the programs that failed ("test_x" or "all").
	Failed []string `json:"failed,omitempty"`
	// Reason is the first failure: "ExcType: message", or the sandbox fact
	// (timeout, memory) when the run itself ended early.
	Reason string `json:"reason,omitempty"`
	// Traceback is the tail of the first failure's traceback.
	Traceback string `json:"traceback,omitempty"`
}

// A CheckResult is one task's reference checked under two assemblies: the
// dataset's original one (each unit test run alone after the installation
// and the solution; CodeUpdateArena src/test_beds/test_bed.py
// check_unit_tests) and novelapi's (hidden setup, the stock target-API
// monitor of every required API, context, reference and the task's
// execution_test with the deferred check, in one script; docs/protocol.md §4.1).
type CheckResult struct {
	TaskID   string  `json:"task_id"`
	Group    string  `json:"group"`
	APIName  string  `json:"api_name"`
	Original Outcome `json:"original"`
	Monitor  Outcome `json:"monitor"`
	// InfraError is set when the sandbox could not run the check.
	InfraError string `json:"infra_error,omitempty"`
	// Harness is the [CheckDigest] of the scripts that made the check.
	Harness string `json:"harness,omitempty"`
}

// CheckDigest identifies the scripts a [CheckResult] depends on: the check
// driver (py/check.py) and the harness's scripts that the monitored
// assembly embeds ([evalharness.ScriptsDigest]). A result of other scripts
// is checked again by [CheckPool].
func CheckDigest() string { return checkDigest() }

var checkDigest = sync.OnceValue(func() string {
	script, _ := pyFS.ReadFile("py/check.py")
	return evalharness.EvaluatorVersion([]byte(evalharness.ScriptsDigest()), script)
})

// CheckReferences runs every task's reference in its environment under the
// original assembly and under novelapi's monitored assembly, and reports
// both. It checks imported pools (C1, docs/protocol.md §4.1 "Construction
// differences") while the harness's Evaluate cannot yet run hidden setups;
// `novelapi eval run` with reference_predictions.jsonl is the harness-level
// C1. The error is non-nil only when ctx ends or an environment is missing.
func CheckReferences(ctx context.Context, tasks []*Task, cfg CheckConfig) ([]CheckResult, error) {
	if cfg.Runner == nil || cfg.Store == nil {
		return nil, errors.New("importers: CheckConfig needs Runner and Store")
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	workers := max(cfg.Workers, 1)
	script, err := pyFS.ReadFile("py/check.py")
	if err != nil {
		return nil, err
	}
	envs := map[string]*sandbox.Environment{}
	for _, t := range tasks {
		if _, ok := envs[t.Environment]; ok {
			continue
		}
		name := t.Environment
		if name == "" {
			name = evalharness.DefaultEnvironment
		}
		e, err := cfg.Store.Get(name)
		if err != nil {
			return nil, fmt.Errorf("task %s: environment %q: %w", t.TaskID, name, err)
		}
		envs[t.Environment] = e
	}
	var bar *progressbar.ProgressBar
	if cfg.Progress != nil {
		bar = progressbar.NewOptions(len(tasks), progressbar.OptionSetWriter(cfg.Progress),
			progressbar.OptionSetDescription("check references"), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true))
	}
	out := make([]CheckResult, len(tasks))
	jobs := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		cbErr error
	)
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				out[i] = checkOne(ctx, tasks[i], envs[tasks[i].Environment], script, cfg)
				if cfg.OnResult != nil {
					mu.Lock()
					if err := cfg.OnResult(out[i]); err != nil && cbErr == nil {
						cbErr = err
					}
					mu.Unlock()
				}
				if bar != nil {
					_ = bar.Add(1)
				}
			}
		})
	}
	var cerr error
feed:
	for i := range tasks {
		select {
		case jobs <- i:
		case <-ctx.Done():
			cerr = context.Cause(ctx)
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if bar != nil {
		_ = bar.Finish()
	}
	if cerr == nil {
		cerr = cbErr
	}
	return out, cerr
}

type checkJob struct {
	Programs [][2]string `json:"programs"`
	Preload  []string    `json:"preload"`
	Timeout  int         `json:"timeout"`
}

func checkOne(ctx context.Context, t *Task, env *sandbox.Environment, script []byte, cfg CheckConfig) CheckResult {
	res := CheckResult{TaskID: t.TaskID, Group: t.Group, APIName: t.APIName, Harness: CheckDigest()}
	per := cfg.ProgramTimeout
	if per <= 0 {
		per = max(15*time.Second, t.Timeout())
	}
	orig := OriginalPrograms(t)
	job := checkJob{Timeout: int(per / time.Second)}
	job.Preload = preloads(t)
	job.Programs = append(job.Programs, orig...)
	job.Programs = append(job.Programs, [2]string{"monitored", MonitoredScript(t)})
	data, _ := json.Marshal(job)
	wall := per*time.Duration(len(job.Programs)) + 30*time.Second
	if t.TimeoutS > 0 {
		wall += time.Duration(t.TimeoutS * float64(time.Second))
	}
	r, err := cfg.Runner.Run(ctx, sandbox.Spec{
		Environment: env,
		Files:       []sandbox.File{{Path: "check.py", Data: script}, {Path: "job.json", Data: data}},
		Argv:        []string{"python3", "-I", "-B", "/job/check.py"},
		Limits:      sandbox.Limits{Wall: wall, Memory: evalharness.DefaultMemory, PIDs: 256},
	})
	if err != nil {
		res.InfraError = err.Error()
		return res
	}
	if r.InfraError != "" {
		res.InfraError = r.InfraError
		return res
	}
	early := ""
	if _, ok := r.Outputs["done.json"]; !ok {
		early = fmt.Sprintf("check driver ended early (exit %d, limit %q): %s", r.ExitCode, r.LimitHit, tail(string(r.Stderr), 300))
	}
	outcome := func(from, to int) Outcome {
		o := Outcome{Passed: true}
		for i := from; i < to; i++ {
			name := job.Programs[i][0]
			raw, ok := r.Outputs[strconv.Itoa(i)+".json"]
			var rec progRecord
			if ok {
				_ = json.Unmarshal(raw, &rec)
			}
			if ok && rec.OK {
				continue
			}
			o.Passed = false
			o.Failed = append(o.Failed, name)
			if o.Reason == "" {
				switch {
				case !ok && early != "":
					o.Reason = early
				case !ok:
					o.Reason = "program died without a record (signal or os._exit)"
				default:
					o.Reason = rec.Exc + ": " + firstLine(rec.Msg)
					o.Traceback = rec.TB
				}
			}
		}
		return o
	}
	res.Original = outcome(0, len(orig))
	res.Monitor = outcome(len(orig), len(job.Programs))
	return res
}

// OriginalPrograms returns the programs the dataset's own harness runs for
// t's reference, named after their unit test: OriginalPrefix, a newline and
// one unit test each. Tasks imported without OriginalPrefix get hidden
// setup, context, reference and the unit test joined as §4.1 joins parts.
func OriginalPrograms(t *Task) [][2]string {
	var out [][2]string
	for i, ut := range t.UnitTests {
		name := "test_" + strconv.Itoa(i)
		if m := defName.FindStringSubmatch(ut); m != nil {
			name = m[1]
		}
		prog := t.OriginalPrefix + "\n" + ut
		if t.OriginalPrefix == "" {
			prog = joinParts(t.HiddenSetup, t.ContextCode, t.MaskedRegion, ut)
		}
		out = append(out, [2]string{name, prog})
	}
	return out
}

// MonitoredScript returns novelapi's assembly of t with its reference as
// the completion: hidden setup, the import lines [A], the recording
// monitor over every required API
// (when the spy is required), context, the post-context reset [E], the
// reference and the execution test (docs/protocol.md §4.1 with the hidden setup
// before [B]); for entry-point-scoped tasks the harness's count of calls
// inside the entry point is reproduced by [DeferredCheckHead] and
// [DeferredCheckTail] around the execution test.
func MonitoredScript(t *Task) string {
	parts := []string{t.HiddenSetup}
	if t.SpyNeeded() {
		targets := append([]string{t.APIName}, t.SpyAPIs...)
		for _, m := range preloads(&Task{Task: &pool.Task{APIName: t.APIName, SpyAPIs: t.SpyAPIs}}) {
			parts = append(parts, guardedImport(m))
		}
		parts = append(parts, evalharness.RecordingMonitor(targets))
	}
	parts = append(parts, t.ContextCode)
	if t.SpyNeeded() {
		parts = append(parts, "try:\n    _target_api_call_count[0] = 0\nexcept NameError:\n    pass")
	}
	parts = append(parts, t.MaskedRegion)
	if t.SpyNeeded() && t.SpyScope == pool.SpyScopeEntryPoint {
		// The harness's entry-point scope, as a deferred check in the script.
		parts = append(parts, DeferredCheckHead(t.APIName, t.EntryPoint), t.TestHarness.ExecutionTest, DeferredCheckTail(t.APIName))
	} else {
		parts = append(parts, t.TestHarness.ExecutionTest)
	}
	return joinParts(parts...)
}

// joinParts joins the non-empty stripped parts with "\n\n" (docs/protocol.md §4.1).
func joinParts(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n\n") + "\n"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return tail(s, 300)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// progRecord is one program's record written by py/check.py.
type progRecord struct {
	OK  bool   `json:"ok"`
	Exc string `json:"exc"`
	Msg string `json:"msg"`
	TB  string `json:"tb"`
}

// isIdentifier reports whether s is an ASCII Python identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// preloads lists the modules the check driver imports before forking: the
// task's group when it names a package, and the module of every target.
// guardedImport imports module m when it can: a preload may name a
// class or an attribute that is no module (numpy.ndarray, numpy.rec in
// numpy 1.x), which the monitor resolves itself.
func guardedImport(m string) string {
	return "try:\n    import " + m + "\nexcept ImportError:\n    pass"
}

func preloads(t *Task) []string {
	var out []string
	add := func(m string) {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	if isIdentifier(t.Group) {
		add(t.Group)
	}
	for _, api := range append([]string{t.APIName}, t.SpyAPIs...) {
		if i := strings.LastIndexByte(api, '.'); i > 0 {
			mod := api[:i]
			// Stop at a class ("torch.Tensor"): import its module instead.
			parts := strings.Split(mod, ".")
			for j, p := range parts {
				if p != "" && p[0] >= 'A' && p[0] <= 'Z' {
					parts = parts[:j]
					break
				}
			}
			add(strings.Join(parts, "."))
		}
	}
	return out
}
