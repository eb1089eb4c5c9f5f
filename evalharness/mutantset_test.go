package evalharness_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
)

// MutantSet over the real pool sample gives each task one mutant of its
// own reference, the kinds used about as often.
func TestMutantSet(t *testing.T) {
	tasks, err := pool.LoadTasks("testdata/pool/tasks.jsonl", pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	preds := evalharness.MutantSet(tasks, nil)
	if len(preds) != len(tasks) {
		t.Fatalf("%d predictions for %d tasks", len(preds), len(tasks))
	}
	used := map[string]int{}
	for i, p := range preds {
		kind, ok := strings.CutPrefix(p.Cell, evalharness.MutantCellPrefix)
		if !ok || p.TaskID != tasks[i].TaskID || len(p.Samples) != 1 {
			t.Fatalf("prediction %d: %+v", i, p)
		}
		var want string
		for _, m := range evalharness.LabelMutants(tasks[i], "") {
			if m.Name == kind {
				want = m.Code
			}
		}
		if p.Samples[0] != want || kind == evalharness.KindSiblingAPI {
			t.Errorf("%s: sample %q is not its %s mutant %q", p.TaskID, p.Samples[0], kind, want)
		}
		used[kind]++
	}
	lo, hi := len(tasks), 0
	for _, n := range used {
		lo, hi = min(lo, n), max(hi, n)
	}
	if len(used) < 5 || hi-lo > len(tasks)/2 {
		t.Errorf("kinds used %v; want most kinds, about evenly", used)
	}
}
