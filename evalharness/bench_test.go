package evalharness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// benchPool loads the pool named by $NOVELAPI_BENCH_TASKS (with
// expected_calls.jsonl beside it) or, without it, builds n copies of a real
// numpy.unstack task. The predictions are the tasks' own reference
// completions (masked_region), so every sample runs the whole pipeline.
func benchPool(b *testing.B, n int) ([]*pool.Task, map[string]*pool.ExpectedCalls, []*pool.Prediction) {
	b.Helper()
	var tasks []*pool.Task
	var expected map[string]*pool.ExpectedCalls
	if path := os.Getenv("NOVELAPI_BENCH_TASKS"); path != "" {
		var err error
		if tasks, err = pool.LoadTasks(path, pool.LoadOptions{SkipInvalid: true}); err != nil {
			b.Fatal(err)
		}
		if expected, err = pool.LoadExpectedCalls(filepath.Join(filepath.Dir(path), "expected_calls.jsonl")); err != nil {
			b.Fatal(err)
		}
		if n > 0 && n < len(tasks) {
			tasks = tasks[:n]
		}
	} else {
		expected = map[string]*pool.ExpectedCalls{}
		for i := range n {
			id := fmt.Sprintf("bench%04d", i)
			tasks = append(tasks, benchTask(id))
			expected[id] = &pool.ExpectedCalls{TaskID: id, APIName: "numpy.unstack", Status: pool.CallsOK,
				Expected: nil, ReferenceSource: "masked_region", NRuns: 4}
		}
	}
	preds := make([]*pool.Prediction, len(tasks))
	for i, t := range tasks {
		preds[i] = &pool.Prediction{TaskID: t.TaskID, Samples: []string{"```python\n" + t.MaskedRegion + "\n```"}}
	}
	return tasks, expected, preds
}

func benchTask(id string) *pool.Task {
	return &pool.Task{
		TaskID: id, APIName: "numpy.unstack", Library: "numpy", Domain: "data_science", Difficulty: "easy", Novelty: "new",
		Description:       "Split the 2-D array x into its rows, assigned to parts.",
		ContextCode:       "import numpy as np\nx = np.arange(6).reshape(2, 3)",
		MaskedRegion:      "parts = np.unstack(x)",
		ReferenceSolution: "import numpy as np\nx = np.arange(6).reshape(2, 3)\nparts = np.unstack(x)\nassert len(parts) == 2\n",
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor("numpy.unstack"),
			ExecutionTest: "# --- target-API call check (auto-injected) ---\n" +
				"assert _target_api_spy_installed, \"target-API spy failed to install\"\n" +
				"assert _target_api_call_count[0] > 0, \"solution did not call target API\"\n" +
				"_target_api_call_count[0] = 0\n" + pool.EndCheckMarker + "\n" +
				"assert len(parts) == 2\n",
			TargetAPI: "numpy.unstack",
		},
	}
}

// BenchmarkEvalRun measures `eval run` throughput (tasks/s with the default
// workers, one greedy sample per task) on a real pool in the real sandbox,
// next to the bare sandbox rate measured in the same process: each task's
// reference_solution run directly, at the same concurrency, without
// extraction, monitor, test or call-record check. harness_overhead is
// bare rate / harness rate (1 means the harness adds nothing). Pool size:
// $NOVELAPI_BENCH_N (default 32). Run through bench/eval.sh.
func BenchmarkEvalRun(b *testing.B) {
	runner := sandboxtest.Runner(b)
	sandboxtest.Env(b, evalharness.DefaultEnvironment)
	n := 32
	if v := os.Getenv("NOVELAPI_BENCH_N"); v != "" {
		fmt.Sscan(v, &n)
	}
	tasks, expected, preds := benchPool(b, n)
	store := debenv.OpenStore(sandboxtest.Home())
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: store, Log: runLog})
	if err != nil {
		b.Fatal(err)
	}
	workers := runtime.NumCPU()
	b.ResetTimer()
	var bareRate, runRate float64
	var passed int
	for range b.N {
		bareRate = bareSandboxRate(b, runner, store, tasks, workers)
		start := time.Now()
		s, err := evalharness.Run(b.Context(), evalharness.RunConfig{Tasks: tasks, Expected: expected, Predictions: preds,
			OutDir: b.TempDir(), Harness: h, Log: runLog})
		if err != nil {
			b.Fatal(err)
		}
		runRate = float64(len(tasks)) / time.Since(start).Seconds()
		passed = s.Passed
	}
	b.ReportMetric(runRate, "tasks/s")
	b.ReportMetric(bareRate, "bare_runs/s")
	b.ReportMetric(bareRate/runRate, "harness_overhead")
	b.ReportMetric(float64(workers), "workers")
	b.ReportMetric(float64(passed)/float64(len(tasks)), "pass@1")
	b.Logf("%d tasks, %d workers (%s): eval run %.2f tasks/s, bare sandbox %.2f runs/s, overhead ×%.2f, pass@1 %d/%d",
		len(tasks), workers, runner.Name(), runRate, bareRate, bareRate/runRate, passed, len(tasks))
}

// bareSandboxRate runs every task's reference_solution in its environment
// with workers at once and returns runs per second.
func bareSandboxRate(b *testing.B, runner sandbox.Runner, store *debenv.Store, tasks []*pool.Task, workers int) float64 {
	b.Helper()
	jobs := make(chan *pool.Task)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for t := range jobs {
				name := t.Environment
				if name == "" {
					name = evalharness.DefaultEnvNames[t.Library]
				}
				if name == "" {
					name = evalharness.DefaultEnvironment
				}
				env, err := store.Get(name)
				if err == nil {
					spec := sandbox.PythonSpec(env, []byte(t.ReferenceSolution))
					spec.Limits.Wall = t.Timeout()
					spec.Limits.Memory = evalharness.DefaultMemory
					var res sandbox.Result
					res, err = runner.Run(context.Background(), spec)
					if err == nil && res.ExitCode != 0 {
						err = fmt.Errorf("task %s: reference exited %d: %s", t.TaskID, res.ExitCode, res.Stderr)
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, t := range tasks {
		jobs <- t
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		b.Logf("bare run error (rate still measured): %v", firstErr)
	}
	return float64(len(tasks)) / time.Since(start).Seconds()
}

// BenchmarkSpyCall measures what the spy adds to one call of its target, in
// the real sandbox (trixie-sci), while it records (the completion's phase):
// check_code runs code that times calls of the spied target and of the
// object it wraps (a function spy's __wrapped__, a class's construction
// through its own metaclass's __call__, a proxy's object). Reported per
// kind of spy, in ns per call: the unspied call (raw_ns), what the spy adds
// to each of the first 200 calls, which leave call records (rec_ns), and
// to the calls after them, best of 5 runs of 20,000 (1,000 for the
// proxy, whose target is slow) (spy_ns).
func BenchmarkSpyCall(b *testing.B) {
	runner := sandboxtest.Runner(b)
	env := sandboxtest.Env(b, "trixie-sci")
	h, err := evalharness.New(evalharness.Config{Runner: runner, Store: debenv.OpenStore(sandboxtest.Home()),
		Envs: func(string) (*sandbox.Environment, error) { return env, nil }})
	if err != nil {
		b.Fatal(err)
	}
	const timer = "import time\ndef t(n, f, *a):\n    s = time.perf_counter()\n    for _ in range(n):\n        f(*a)\n" +
		"    return (time.perf_counter() - s) / n * 1e9\n" +
		"def bench(n, spied, raw, *a):\n    r0 = t(200, raw, *a)\n    rec = t(200, spied, *a) - r0\n" +
		"    raw_ns = min(t(n, raw, *a) for _ in range(5))\n    spy = min(t(n, spied, *a) for _ in range(5)) - raw_ns\n" +
		"    print('SPY_NS %.0f %.0f %.0f' % (raw_ns, rec, spy))\n"
	tests := []struct{ name, api, code string }{
		{"function", "math.hypot", "import math\nbench(20000, math.hypot, math.hypot.__wrapped__, 3.0, 4.0)"},
		{"class", "fractions.Fraction", "from fractions import Fraction\nraw = type(Fraction).__mro__[1].__call__\n" +
			"bench(20000, Fraction, lambda *a: raw(Fraction, *a), 1, 2)"},
		{"subclass", "datetime.datetime", "import datetime\nbench(20000, datetime.datetime, datetime.datetime.__mro__[1], 2020, 1, 2)"},
		{"proxy", "scipy.stats.norm", "import scipy.stats\nraw = scipy.stats.norm.__wrapped__\n" +
			"bench(1000, lambda x: scipy.stats.norm.cdf(x), lambda x: raw.cdf(x), 0.5)"},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			var raw, rec, spy float64
			for range b.N {
				cr, err := h.CheckCode(b.Context(), timer+tt.code, tt.api, strings.Split(tt.api, ".")[0])
				if err != nil {
					b.Fatal(err)
				}
				i := strings.Index(cr.Stdout, "SPY_NS ")
				if !cr.Ran || !cr.TargetCalled || i < 0 {
					b.Fatalf("ran %v, called %v: %s %s\n%s", cr.Ran, cr.TargetCalled, cr.ExceptionType, cr.Message, cr.Stderr)
				}
				fmt.Sscan(cr.Stdout[i+len("SPY_NS "):], &raw, &rec, &spy)
			}
			b.ReportMetric(raw, "raw_ns")
			b.ReportMetric(rec, "rec_ns")
			b.ReportMetric(spy, "spy_ns")
		})
	}
}
