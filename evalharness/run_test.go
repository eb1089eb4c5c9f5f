package evalharness_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
)

// fakeHarness decides a response by its text: "pass", "crash", "wrong:<Label>",
// "infra" (an infrastructure error every time) or "flaky" (one error, then
// pass). It stands in for the sandboxed Harness in unit tests of Run's
// scheduling; the real Harness is exercised by TestRun_RealSandbox.
type fakeHarness struct {
	calls atomic.Int64
	// onCall, if set, runs before each evaluation with the call number.
	onCall func(n int64)
	mu     sync.Mutex
	flaky  map[string]bool
}

func (f *fakeHarness) Evaluate(ctx context.Context, task *pool.Task, expected *pool.ExpectedCalls, response string) (evalharness.Verdict, error) {
	n := f.calls.Add(1)
	if f.onCall != nil {
		f.onCall(n)
	}
	if err := ctx.Err(); err != nil {
		return evalharness.Verdict{}, err
	}
	switch {
	case response == "pass":
		return evalharness.Verdict{Passed: true, Label: "Pass", Status: "PASS", Executed: true, TargetCalled: true, SpyCalls: 1, Wall: time.Millisecond}, nil
	case response == "crash":
		return evalharness.Verdict{Label: "WrongLogic", Status: "CRASH", ExceptionType: "ValueError", Error: "ValueError: x", TargetCalled: true}, nil
	case strings.HasPrefix(response, "wrong:"):
		return evalharness.Verdict{Label: strings.TrimPrefix(response, "wrong:"), Status: "WRONG_ANSWER", Executed: true}, nil
	case response == "infra":
		return evalharness.Verdict{}, errors.New("sandbox: backend unavailable")
	case response == "flaky":
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.flaky[task.TaskID] {
			f.flaky[task.TaskID] = true
			return evalharness.Verdict{Status: "INFRA_ERROR", InfraError: "container vanished"}, nil
		}
		return evalharness.Verdict{Passed: true, Label: "Pass", Status: "PASS", Executed: true, TargetCalled: true}, nil
	}
	return evalharness.Verdict{}, fmt.Errorf("fake: unknown response %q", response)
}

// fakePool returns n tasks and predictions cycling through the fake outcomes;
// every third task has 5 samples.
func fakePool(n int) ([]*pool.Task, []*pool.Prediction) {
	outcomes := []string{"pass", "crash", "wrong:WrongParam", "pass", "wrong:WrongLogic", "flaky", "pass"}
	libs := []string{"numpy", "scipy", "pandas"}
	diffs := []string{"easy", "medium", "hard"}
	var tasks []*pool.Task
	var preds []*pool.Prediction
	for i := range n {
		id := fmt.Sprintf("t%03d", i)
		tasks = append(tasks, &pool.Task{TaskID: id, APIName: libs[i%3] + ".f", Library: libs[i%3], Domain: "data_science",
			Difficulty: diffs[i%3], Novelty: []string{"new", "modified"}[i%2]})
		samples := []string{outcomes[i%len(outcomes)]}
		if i%3 == 0 {
			samples = append(samples, "pass", "crash", "wrong:WrongLogic", "pass")
		}
		preds = append(preds, &pool.Prediction{TaskID: id, Cell: "S+E", Samples: samples})
	}
	return tasks, preds
}

func readLines(t testing.TB, path string) []pool.TaskResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []pool.TaskResult
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r pool.TaskResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, r)
	}
	return out
}

func ids(rs []pool.TaskResult) map[string]int {
	m := map[string]int{}
	for _, r := range rs {
		m[r.TaskID]++
	}
	return m
}

func TestRun(t *testing.T) {
	tasks, preds := fakePool(21)
	dir := t.TempDir()
	var progress strings.Builder
	s, err := evalharness.Run(t.Context(), evalharness.RunConfig{
		Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Workers: 3, Harness: &fakeHarness{flaky: map[string]bool{}},
		Progress: &progress, ClassifyFailures: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	rs := readLines(t, filepath.Join(dir, pool.ResultsFile))
	if len(rs) != 21 || len(ids(rs)) != 21 {
		t.Fatalf("results.jsonl has %d lines, %d ids; want 21, 21", len(rs), len(ids(rs)))
	}
	// pass: i%7 in {0,3,5(flaky, retried),6} → 12 of 21.
	if s.N != 21 || s.Passed != 12 {
		t.Errorf("N, Passed = %d, %d; want 21, 12", s.N, s.Passed)
	}
	if s.Condition["S+E"].N != 21 {
		t.Errorf("by_condition[S+E].N = %d; want 21", s.Condition["S+E"].N)
	}
	if s.PassAt5 != nil {
		t.Errorf("PassAt5 = %v with tasks of one sample; want nil", *s.PassAt5)
	}
	for _, r := range rs {
		if r.TaskID == "t005" && !r.Retried {
			t.Errorf("t005 (flaky) not marked retried")
		}
		if r.TaskID == "t000" {
			if r.NSamples != 5 || r.NPassed != 3 || r.PassAt5 == nil || *r.PassAt5 != 1 || len(r.Samples) != 5 {
				t.Errorf("t000 = n %d c %d pass@5 %v samples %d; want 5, 3, 1, 5", r.NSamples, r.NPassed, r.PassAt5, len(r.Samples))
			}
		}
	}
	if !strings.Contains(progress.String(), "21/21") {
		t.Errorf("progress output lacks 21/21: %q", progress.String())
	}
	got, err := evalharness.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != s.N || got.PassAt1 != s.PassAt1 {
		t.Errorf("summary.json = %d, %v; want %d, %v", got.N, got.PassAt1, s.N, s.PassAt1)
	}
	meta, err := evalharness.ReadMeta(dir)
	if err != nil || !meta.ClassifyFailures || !meta.PassAt5 || len(meta.EvaluatorVersion) != 16 {
		t.Errorf("eval_meta.json = %+v, %v", meta, err)
	}
}

func TestRun_InfraErrorsExcluded(t *testing.T) {
	tasks, preds := fakePool(4)
	preds[1].Samples = []string{"infra"}
	dir := t.TempDir()
	h := &fakeHarness{flaky: map[string]bool{}}
	s, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Harness: h})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 3 || len(s.InfraErrors) != 1 || s.InfraErrors[0] != "t001" {
		t.Errorf("N, InfraErrors = %d, %v; want 3, [t001]", s.N, s.InfraErrors)
	}
	// 1 + 2 retries for t001, 5 samples each of t000 and t003, one for t002.
	if got := h.calls.Load(); got != 3+5+5+1 {
		t.Errorf("evaluations = %d; want 14", got)
	}
	// A rerun re-evaluates the infra error and still holds one line per task.
	preds[1].Samples = []string{"pass"}
	s, err = evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Harness: h})
	if err != nil {
		t.Fatal(err)
	}
	rs := readLines(t, filepath.Join(dir, pool.ResultsFile))
	if len(rs) != 4 || s.N != 4 || len(s.InfraErrors) != 0 {
		t.Errorf("after rerun: %d lines, N %d, infra %v; want 4, 4, []", len(rs), s.N, s.InfraErrors)
	}
}

func TestRun_ResumeAfterCancel(t *testing.T) {
	tasks, preds := fakePool(30)
	full := t.TempDir()
	want, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: full, Log: runLog, Workers: 2, Harness: &fakeHarness{flaky: map[string]bool{}}})
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	h := &fakeHarness{flaky: map[string]bool{}, onCall: func(n int64) {
		if n == 25 {
			cancel() // a kill mid-run
		}
	}}
	_, err = evalharness.Run(ctx, evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Workers: 2, Harness: h})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Run error = %v; want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dir, pool.SummaryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cancelled Run wrote summary.json (stat err %v)", err)
	}
	partial := readLines(t, filepath.Join(dir, pool.ResultsFile))
	if len(partial) == 0 || len(partial) >= 30 {
		t.Fatalf("cancelled run kept %d results; want some but not all", len(partial))
	}
	// Simulate a torn write at the kill.
	f, err := os.OpenFile(filepath.Join(dir, pool.ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"task_id":"t029","api_name":"sci`)
	f.Close()

	got, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Workers: 2, Harness: &fakeHarness{flaky: map[string]bool{}}})
	if err != nil {
		t.Fatal(err)
	}
	rs := readLines(t, filepath.Join(dir, pool.ResultsFile))
	for id, c := range ids(rs) {
		if c != 1 {
			t.Errorf("task %s appears %d times", id, c)
		}
	}
	if len(rs) != 30 {
		t.Errorf("resumed run has %d results; want 30", len(rs))
	}
	if !reflect.DeepEqual(got.Metrics, want.Metrics) || !reflect.DeepEqual(got.Breakdowns, want.Breakdowns) {
		t.Errorf("resumed summary differs:\n got %+v\nwant %+v", got.Metrics, want.Metrics)
	}
}

// TestRun_SecondWriterRefused: a second Run into a directory that a Run is
// writing fails at once with ErrRunInUse naming the holder, and the first
// run's results stay whole.
func TestRun_SecondWriterRefused(t *testing.T) {
	tasks, preds := fakePool(12)
	dir := t.TempDir()
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := &fakeHarness{flaky: map[string]bool{}, onCall: func(int64) {
		once.Do(func() { close(started); <-release })
	}}
	first := make(chan error, 1)
	go func() {
		_, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Workers: 2, Harness: h})
		first <- err
	}()
	<-started
	_, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Workers: 2, Harness: &fakeHarness{flaky: map[string]bool{}}})
	close(release)
	if !errors.Is(err, evalharness.ErrRunInUse) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
		t.Errorf("second Run: %v; want ErrRunInUse naming process %d", err, os.Getpid())
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	rs := readLines(t, filepath.Join(dir, pool.ResultsFile))
	if len(rs) != 12 {
		t.Errorf("first run wrote %d results; want 12", len(rs))
	}
}

// TestRun_ResumeRepairsGarbledLines: results.jsonl as two unlocked writers
// left it (one record overwritten in the middle by another's, a torn last
// line) is repaired on resume: the garbled tasks are evaluated again, each
// task is recorded once and the summary is the clean run's.
func TestRun_ResumeRepairsGarbledLines(t *testing.T) {
	tasks, preds := fakePool(30)
	cfg := func(dir string) evalharness.RunConfig {
		return evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Workers: 2, Harness: &fakeHarness{flaky: map[string]bool{}}}
	}
	want, err := evalharness.Run(t.Context(), cfg(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := evalharness.Run(t.Context(), cfg(dir)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, pool.ResultsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Writer B's record written over the tail of writer A's at the same
	// offset: A's head, then B's record, on one line.
	lines[7] = lines[7][:len(lines[7])/2] + lines[8]
	lines[8] = ""
	garbled := strings.Join(lines[:25], "") + `{"task_id":"t029","api_name":"sci`
	if err := os.WriteFile(path, []byte(garbled), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := pool.ReadResults(path); err == nil {
		t.Fatal("the garbled file reads clean; the test does not garble it")
	}
	got, err := evalharness.Run(t.Context(), cfg(dir))
	if err != nil {
		t.Fatalf("resume over a garbled results.jsonl: %v", err)
	}
	rs := readLines(t, path)
	for id, c := range ids(rs) {
		if c != 1 {
			t.Errorf("task %s appears %d times", id, c)
		}
	}
	if len(rs) != 30 {
		t.Errorf("repaired run has %d results; want 30", len(rs))
	}
	if !reflect.DeepEqual(got.Metrics, want.Metrics) {
		t.Errorf("repaired summary differs:\n got %+v\nwant %+v", got.Metrics, want.Metrics)
	}
}

func TestRun_MetaMismatch(t *testing.T) {
	tasks, preds := fakePool(3)
	dir := t.TempDir()
	cfg := evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog, Harness: &fakeHarness{flaky: map[string]bool{}}, EvaluatorVersion: "aaaaaaaaaaaaaaaa"}
	if _, err := evalharness.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	cfg.EvaluatorVersion = "bbbbbbbbbbbbbbbb"
	if _, err := evalharness.Run(t.Context(), cfg); !errors.Is(err, evalharness.ErrMetaMismatch) {
		t.Fatalf("rerun with another evaluator: err = %v; want ErrMetaMismatch", err)
	}
	cfg.Rescore = true
	if _, err := evalharness.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if rs := readLines(t, filepath.Join(dir, pool.ResultsFile)); len(rs) != 3 {
		t.Errorf("rescored run has %d results; want 3", len(rs))
	}
}

func TestRun_UnknownTask(t *testing.T) {
	tasks, preds := fakePool(3)
	preds = append(preds, &pool.Prediction{TaskID: "nope", Samples: []string{"pass"}})
	_, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: t.TempDir(), Harness: &fakeHarness{}})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err = %v; want one naming the unknown task", err)
	}
}

func TestShardMerge(t *testing.T) {
	tasks, preds := fakePool(23)
	whole := t.TempDir()
	want, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: whole, Log: runLog, Harness: &fakeHarness{flaky: map[string]bool{}}, Condition: "S+E"})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	var dirs []string
	for i := range 3 {
		d := filepath.Join(root, fmt.Sprintf("shard%d", i))
		dirs = append(dirs, d)
		if _, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: d, Log: runLog,
			Shard: evalharness.Shard{Index: i, Count: 3}, Harness: &fakeHarness{flaky: map[string]bool{}}, Condition: "S+E"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := evalharness.Merge(filepath.Join(root, "partial"), dirs[:2]...); !errors.Is(err, evalharness.ErrShardMismatch) {
		t.Errorf("merge of 2 of 3 shards: err = %v; want ErrShardMismatch", err)
	}
	if _, err := evalharness.Merge(filepath.Join(root, "dup"), dirs[0], dirs[0], dirs[1], dirs[2]); !errors.Is(err, evalharness.ErrShardMismatch) {
		t.Errorf("merge with a duplicated shard: err = %v; want ErrShardMismatch", err)
	}
	out := filepath.Join(root, "merged")
	got, err := evalharness.Merge(out, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Metrics, want.Metrics) || !reflect.DeepEqual(got.Breakdowns, want.Breakdowns) {
		t.Errorf("merged summary differs:\n got %+v\nwant %+v", got.Metrics, want.Metrics)
	}
	if len(got.Shards) != 3 {
		t.Errorf("Shards = %v; want three", got.Shards)
	}
	// Merged results are in prediction order and equal the unsharded ones.
	wantRs := readLines(t, filepath.Join(whole, pool.ResultsFile))
	gotRs := readLines(t, filepath.Join(out, pool.ResultsFile))
	if len(gotRs) != len(wantRs) {
		t.Fatalf("merged %d results; want %d", len(gotRs), len(wantRs))
	}
	byID := map[string]pool.TaskResult{}
	for _, r := range wantRs {
		r.WallMS = 0
		byID[r.TaskID] = r
	}
	for i, r := range gotRs {
		if r.Index != i {
			t.Errorf("merged line %d has index %d", i, r.Index)
		}
		r.WallMS = 0
		if !reflect.DeepEqual(r, byID[r.TaskID]) {
			t.Errorf("merged %s = %+v; want %+v", r.TaskID, r, byID[r.TaskID])
		}
	}
	// A mismatched evaluation cannot be merged.
	other := filepath.Join(root, "other")
	if _, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: other, Log: runLog,
		Shard: evalharness.Shard{Index: 2, Count: 3}, Harness: &fakeHarness{flaky: map[string]bool{}}, Condition: "S"}); err != nil {
		t.Fatal(err)
	}
	if _, err := evalharness.Merge(filepath.Join(root, "bad"), dirs[0], dirs[1], other); !errors.Is(err, evalharness.ErrShardMismatch) {
		t.Errorf("merge across conditions: err = %v; want ErrShardMismatch", err)
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in      string
		want    evalharness.Shard
		wantErr bool
	}{
		{"", evalharness.Shard{}, false},
		{"0/4", evalharness.Shard{Index: 0, Count: 4}, false},
		{"3/4", evalharness.Shard{Index: 3, Count: 4}, false},
		{"4/4", evalharness.Shard{}, true},
		{"-1/4", evalharness.Shard{}, true},
		{"1", evalharness.Shard{}, true},
		{"a/b", evalharness.Shard{}, true},
	}
	for _, tt := range tests {
		got, err := evalharness.ParseShard(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseShard(%q) = %+v, %v; want %+v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestReadResults_TornTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, pool.ResultsFile)
	good := `{"task_id":"a","passed":true,"label":"Pass"}` + "\n" + `{"task_id":"b","passed":false,"label":"WrongLogic"}` + "\n"
	tests := []struct {
		name      string
		data      string
		wantN     int
		wantValid int
		wantErr   string
	}{
		{"Clean", good, 2, len(good), ""},
		{"TornJSON", good + `{"task_id":"c","pas`, 2, len(good), ""},
		{"NoNewline", good + `{"task_id":"c"}`, 2, len(good), ""},
		{"BadMiddle", `{"task_id":"a"}` + "\n" + "garbage\n" + `{"task_id":"b"}` + "\n", 0, 0, "results.jsonl:2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			rs, valid, err := pool.ReadResults(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(rs) != tt.wantN || valid != int64(tt.wantValid) {
				t.Errorf("ReadResults = %d results, valid %d, %v; want %d, %d", len(rs), valid, err, tt.wantN, tt.wantValid)
			}
		})
	}
}

// runLog silences Run, which logs retries and resumes.
var runLog = slog.New(slog.DiscardHandler)
