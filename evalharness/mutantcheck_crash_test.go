package evalharness

import (
	"github.com/novelapi/novelapi/pool"
	"strings"
	"testing"
)

// TestRunMutantCheck_Skip: a mutant that killed the interpreter in an
// earlier run is recorded invalid without running again, and the check
// goes on with the others.
func TestRunMutantCheck_Skip(t *testing.T) {
	h := newTestHarness(t)
	tasks, _ := loadFixture(t)
	task := *tasks[0]
	if task.TaskID != "np_cumulative_sum_easy" {
		t.Fatalf("fixture order changed: first task %s", task.TaskID)
	}
	task.TestHarness.ExecutionTest += "\nassert running.tolist() == [[0.0, 3.0, 4.0, 8.0], [0.0, 1.0, 6.0, 15.0]], running"
	env, err := h.environment(&task)
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string][][2]string{task.TaskID: {{"zero", ""}}}
	cs, died, err := runMutantCheck(t.Context(), h.cfg.Runner, env, 0, []*pool.Task{&task}, skip)
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if len(died) != 0 || c.Status != CheckDiscriminates || len(c.Mutants) < 3 {
		t.Fatalf("status %s, %d mutants, died %v; want a finished check that discriminates", c.Status, len(c.Mutants), died)
	}
	if m := c.Mutants[0]; m.Name != "zero" || m.Outcome != MutantInvalid || !strings.Contains(m.Detail, "crashed") {
		t.Errorf("first mutant %+v; want zero, invalid, crashed", m)
	}
}
