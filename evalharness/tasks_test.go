package evalharness

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

var update = flag.Bool("update", false, "rewrite golden files and generated testdata")

const (
	tasksPath    = "testdata/tasks/tasks.jsonl"
	expectedPath = "testdata/tasks/expected_calls.jsonl"
)

// buildTestTasks turns testdata/tasks/src/*.txtar (task metadata as the
// comment, then context.py, masked.py and scenario.py) into protocol tasks.
func buildTestTasks(t testing.TB) []*pool.Task {
	t.Helper()
	paths, _ := filepath.Glob("testdata/tasks/src/*.txtar")
	sort.Strings(paths)
	var tasks []*pool.Task
	for _, p := range paths {
		a := readTxtar(t, p)
		task := new(pool.Task)
		if err := json.Unmarshal([]byte(a.Comment), task); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		task.ContextCode = strings.TrimSpace(a.Files["context.py"])
		task.MaskedRegion = strings.TrimSpace(a.Files["masked.py"])
		task.ReferenceSolution = task.ContextCode + "\n" + task.MaskedRegion
		task.TestHarness = pool.TestHarness{
			SetupCode:          pool.StockMonitor(task.APIName),
			ExecutionTest:      pool.CheckBlock(task.APIName) + strings.TrimSpace(a.Files["scenario.py"]),
			TargetAPI:          task.APIName,
			GenerationMethod:   "execute_then_assert",
			ScenariosSucceeded: 1,
			ScenariosTotal:     1,
		}
		tasks = append(tasks, task)
	}
	return tasks
}

func TestTestTasks_UpToDate(t *testing.T) {
	tasks := buildTestTasks(t)
	if len(tasks) < 6 {
		t.Fatalf("only %d test tasks", len(tasks))
	}
	if *update {
		if err := pool.WriteTasks(tasksPath, tasks); err != nil {
			t.Fatal(err)
		}
	}
	got, err := pool.LoadTasks(tasksPath, pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(tasks)
	if !bytes.Equal(a, b) {
		t.Errorf("%s is stale; run go test ./evalharness -run TestTestTasks -update", tasksPath)
	}
}

// TestRecordExpectedCalls builds the reference call records of the test
// tasks in the sandbox and compares them with expected_calls.jsonl.
func TestRecordExpectedCalls(t *testing.T) {
	h := newTestHarness(t)
	tasks := buildTestTasks(t)
	if !*update && len(tasks) > 3 {
		tasks = tasks[:3] // determinism check on a subset; -update rebuilds all
	}
	recs := make([]*pool.ExpectedCalls, len(tasks))
	parallelDo(t, len(tasks), func(i int) {
		ec, err := h.RecordExpectedCalls(context.Background(), tasks[i])
		if err != nil {
			t.Error(err)
		}
		recs[i] = ec
	})
	for i, task := range tasks {
		ec := recs[i]
		if ec == nil {
			continue
		}
		if ec.Status != pool.CallsOK || len(ec.Expected) == 0 || ec.NRuns != 4 {
			t.Errorf("%s: status %s, %d records, %d runs; want ok with records from 4 runs", task.TaskID, ec.Status, len(ec.Expected), ec.NRuns)
		}
	}
	if *update {
		if err := pool.WriteExpectedCalls(expectedPath, recs); err != nil {
			t.Fatal(err)
		}
	}
	want, err := pool.LoadExpectedCalls(expectedPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, ec := range recs {
		a, _ := json.Marshal(ec)
		b, _ := json.Marshal(want[ec.TaskID])
		if !bytes.Equal(a, b) {
			t.Errorf("%s: records differ from %s (run with -update and review):\n got %s\nwant %s", ec.TaskID, expectedPath, a, b)
		}
	}
}

// TestMutation checks the taxonomy on real tasks: the reference passes,
// and each mutant gets the label it should; agreement per label >= 90%.
func TestMutation(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	ctx := context.Background()
	type item struct {
		task *pool.Task
		m    Mutant // Name "" for the reference
	}
	var items []item
	for _, task := range tasks {
		items = append(items, item{task: task, m: Mutant{Code: task.MaskedRegion, Want: pool.LabelPass}})
		for _, m := range Mutants(task) {
			items = append(items, item{task, m})
		}
	}
	got := make([]Verdict, len(items))
	parallelDo(t, len(items), func(i int) {
		v, err := h.Evaluate(ctx, items[i].task, exp[items[i].task.TaskID], items[i].m.Code)
		if err != nil {
			t.Error(err)
		}
		got[i] = v
	})
	confusion := map[string]map[string]int{}
	for i, it := range items {
		v := got[i]
		if it.m.Name == "" {
			if !v.Passed {
				t.Errorf("%s: reference failed: %s %s %s", it.task.TaskID, v.Status, v.Label, v.Error)
			}
			continue
		}
		if confusion[it.m.Want] == nil {
			confusion[it.m.Want] = map[string]int{}
		}
		confusion[it.m.Want][v.Label]++
		if v.Label != it.m.Want {
			t.Logf("%s/%s: got %s (%s: %s), want %s\n%s\nerror: %s", it.task.TaskID, it.m.Name, v.Label, v.Rule, v.Rationale, it.m.Want, it.m.Code, v.Error)
		}
	}
	t.Log("\n" + confusionTable(confusion))
	for _, want := range pool.Labels {
		row := confusion[want]
		n := 0
		for _, c := range row {
			n += c
		}
		if n == 0 {
			continue
		}
		if agree := float64(row[want]) / float64(n); agree < 0.9 {
			t.Errorf("%s: agreement %.0f%% (%d/%d) < 90%%", want, 100*agree, row[want], n)
		}
	}
}

var _ = os.Getenv

// parallelDo calls fn(0..n-1) on two workers (the machines have two
// cores; docs/sandbox.md §4.2 concurrency).
func parallelDo(t testing.TB, n int, fn func(i int)) {
	t.Helper()
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
