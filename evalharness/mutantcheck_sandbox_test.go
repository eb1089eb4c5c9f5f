package evalharness

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// TestCheckMutants_Fixture: the hand-written fixture tasks test the API on
// inputs of their own and never read the completion's output, so each of
// them lets a wrong answer pass; their references pass.
func TestCheckMutants_Fixture(t *testing.T) {
	h := newTestHarness(t)
	tasks, _ := loadFixture(t)
	cs, err := h.CheckMutants(context.Background(), tasks[:4])
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if c.TaskID != tasks[i].TaskID || c.Script != "pass" {
			t.Errorf("%s: task %s, reference %q (%s); want the reference to pass", tasks[i].TaskID, c.TaskID, c.Script, c.ReferenceError)
		}
		if c.Status != CheckWeak || len(c.Survivors()) == 0 {
			t.Errorf("%s: status %s, survivors %v; want weak", c.TaskID, c.Status, c.Survivors())
		}
		if c.ValueAssertions != 0 {
			t.Errorf("%s: %d value assertions; the test reads no output", c.TaskID, c.ValueAssertions)
		}
	}
}

// TestCheckPool_ChecksOnce: outcomes are recorded beside the pool and
// reused; a task whose test changes is checked again, and a test that
// compares the output's values rejects every mutant.
func TestCheckPool_ChecksOnce(t *testing.T) {
	h := newTestHarness(t)
	all, exp := loadFixture(t)
	var tasks []*pool.Task
	for _, tk := range all {
		if tk.TaskID == "np_cumulative_sum_easy" || tk.TaskID == "np_matrix_transpose_easy" {
			tasks = append(tasks, tk)
		}
	}
	path := filepath.Join(t.TempDir(), CheckFile)
	cfg := PoolCheckConfig{Harness: h, Tasks: tasks, Expected: exp, Path: path, Workers: 2}
	first, err := CheckPool(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if first.Checked != 2 || first.ReferencePasses != 2 || first.Discriminating != 0 || len(first.Flagged) != 2 {
		t.Fatalf("first check: %d checked, %d references pass, %d discriminating, %d flagged; want 2, 2, 0, 2", first.Checked, first.ReferencePasses, first.Discriminating, len(first.Flagged))
	}
	for _, c := range first.Checks {
		if c.Reference != "pass" {
			t.Errorf("%s: full-harness reference verdict %q, want pass", c.TaskID, c.Reference)
		}
	}
	again, err := CheckPool(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if again.Checked != 0 || again.Checks["np_cumulative_sum_easy"].Status != CheckWeak {
		t.Errorf("second check ran %d checks (want 0, all recorded), status %s", again.Checked, again.Checks["np_cumulative_sum_easy"].Status)
	}
	// The test now also compares the completion's output with the values
	// numpy's documented example gives.
	strong := *tasks[0]
	strong.TestHarness.ExecutionTest += "\nassert running.tolist() == [[0.0, 3.0, 4.0, 8.0], [0.0, 1.0, 6.0, 15.0]], running"
	cfg.Tasks = []*pool.Task{&strong, tasks[1]}
	third, err := CheckPool(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := third.Checks[strong.TaskID]
	if third.Checked != 1 || c.Status != CheckDiscriminates || c.ValueAssertions != 1 {
		t.Errorf("after strengthening: %d checked (want 1), status %s (want discriminates), %d value assertions (want 1)\n%+v", third.Checked, c.Status, c.ValueAssertions, c.Mutants)
	}
	var b strings.Builder
	third.WriteReport(&b, 0)
	if !strings.Contains(b.String(), "np_matrix_transpose_easy  weak: accepts wrong answers: mutant") || strings.Contains(b.String(), "np_cumulative_sum_easy") {
		t.Errorf("report does not list exactly the weak task:\n%s", b.String())
	}
}

// TestCheckPool_ReferenceOfAnotherHarness: a reference verdict in the check
// file is kept while the harness's scripts are the ones that made it, and
// made again, without running the mutant script again, once they differ.
func TestCheckPool_ReferenceOfAnotherHarness(t *testing.T) {
	h := newTestHarness(t)
	all, exp := loadFixture(t)
	var tasks []*pool.Task
	for _, tk := range all {
		if tk.TaskID == "np_cumulative_sum_easy" {
			tasks = append(tasks, tk)
		}
	}
	id := tasks[0].TaskID
	path := filepath.Join(t.TempDir(), CheckFile)
	cfg := PoolCheckConfig{Harness: h, Tasks: tasks, Expected: exp, Path: path, Workers: 1}
	if pc, err := CheckPool(t.Context(), cfg); err != nil || pc.Checks[id].Reference != "pass" {
		t.Fatalf("first check: %v; want the reference to pass", err)
	}
	for _, tt := range []struct {
		name, harness, want string
	}{
		{"SameHarness", ScriptsDigest(), pool.StatusAPINotCalled},
		{"OtherHarness", "0123456789abcdef", "pass"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The check file says the harness of digest tt.harness found
			// that the reference did not call the target.
			checks, err := readChecks(path)
			if err != nil {
				t.Fatal(err)
			}
			c := checks[id]
			c.Reference, c.ReferenceError, c.ReferenceHarness = pool.StatusAPINotCalled, "solution did not call target API", tt.harness
			c.settle()
			if err := writeChecks(path, []*TaskCheck{c}); err != nil {
				t.Fatal(err)
			}
			pc, err := CheckPool(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			c = pc.Checks[id]
			if pc.Checked != 0 || c.Reference != tt.want || c.ReferenceHarness != ScriptsDigest() {
				t.Errorf("%d mutant scripts run (want 0), reference %q (want %q), harness %q (want %q)",
					pc.Checked, c.Reference, tt.want, c.ReferenceHarness, ScriptsDigest())
			}
		})
	}
}
