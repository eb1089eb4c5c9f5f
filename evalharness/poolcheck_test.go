package evalharness

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

func TestTaskDigest_ChangesWithTestAndReference(t *testing.T) {
	tasks := buildTestTasks(t)
	base := TaskDigest(tasks[0])
	for _, tt := range []struct {
		name string
		edit func(*pool.Task)
		same bool
	}{
		{"Description", func(t *pool.Task) { t.Description += " again" }, true},
		{"Test", func(t *pool.Task) { t.TestHarness.ExecutionTest += "\nassert True" }, false},
		{"Masked", func(t *pool.Task) { t.MaskedRegion += "\nx = 1" }, false},
		{"Context", func(t *pool.Task) { t.ContextCode += "\ny = 2" }, false},
		{"Environment", func(t *pool.Task) { t.Environment = "bookworm-sci" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := *tasks[0]
			tt.edit(&c)
			if got := TaskDigest(&c) == base; got != tt.same {
				t.Errorf("digest unchanged = %v, want %v", got, tt.same)
			}
		})
	}
}

func TestMutantBatches(t *testing.T) {
	mk := func(id, lib, hidden string) *pool.Task {
		return &pool.Task{TaskID: id, Library: lib, HiddenSetup: hidden}
	}
	tasks := []*pool.Task{mk("a", "numpy", ""), mk("b", "numpy", ""), mk("c", "scipy", ""), mk("d", "numpy", "patch()"), mk("e", "numpy", ""), mk("f", "numpy", "")}
	got := mutantBatches(tasks, 2)
	want := [][]int{{0, 1}, {2}, {3}, {4, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mutantBatches = %v, want %v", got, want)
	}
}

func TestTaskCheck_Settle(t *testing.T) {
	killed := MutantOutcome{Name: "zero", Outcome: MutantKilled}
	survived := MutantOutcome{Name: "sibling-api", What: "cumsum", Outcome: MutantSurvived}
	invalid := MutantOutcome{Name: "constant", Outcome: MutantInvalid}
	tests := []struct {
		name string
		c    TaskCheck
		want string
	}{
		{"AllKilled", TaskCheck{Script: "pass", Mutants: []MutantOutcome{killed, invalid}}, CheckDiscriminates},
		{"OneSurvives", TaskCheck{Script: "pass", Mutants: []MutantOutcome{killed, survived}}, CheckWeak},
		{"NoneApplies", TaskCheck{Script: "pass", Mutants: []MutantOutcome{invalid}}, CheckNoMutant},
		{"ReferenceFailsTest", TaskCheck{Script: "fails_test", Mutants: nil}, CheckReferenceFails},
		{"ReferenceFailsHarness", TaskCheck{Script: "pass", Reference: "FAIL WrongLogic", Mutants: []MutantOutcome{killed}}, CheckReferenceFails},
		{"CutShort", TaskCheck{Script: "pass", Error: "timed out", Mutants: []MutantOutcome{killed}}, CheckError},
		{"CutShortWithSurvivor", TaskCheck{Script: "pass", Error: "timed out", Mutants: []MutantOutcome{survived}}, CheckWeak},
		{"NeverRan", TaskCheck{Error: "sandbox"}, CheckError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			c.settle()
			if c.Status != tt.want {
				t.Errorf("status %s, want %s", c.Status, tt.want)
			}
		})
	}
	c := TaskCheck{Script: "pass", Mutants: []MutantOutcome{killed, survived}}
	c.settle()
	if got, want := c.Why(), "accepts wrong answers: mutant sibling-api (cumsum) survived"; got != want {
		t.Errorf("Why() = %q, want %q", got, want)
	}
	none := TaskCheck{Script: "pass", Notes: []string{"the task names no API: no call-level mutant"}}
	none.settle()
	if got, want := none.Why(), "no mutant applies: none could be made (the task names no API: no call-level mutant)"; none.Status != CheckNoMutant || got != want {
		t.Errorf("no mutant made: status %s, Why() = %q; want %s, %q", none.Status, got, CheckNoMutant, want)
	}
}

// TestWriteChecks_Merges: rewriting the check file keeps other tasks'
// entries and replaces the rewritten ones.
func TestWriteChecks_Merges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pool", CheckFile) // a pool being built has no directory yet
	if err := writeChecks(path, []*TaskCheck{{TaskID: "b", Status: CheckWeak}, {TaskID: "a", Status: CheckWeak}}); err != nil {
		t.Fatal(err)
	}
	if err := writeChecks(path, []*TaskCheck{{TaskID: "b", Status: CheckDiscriminates}, nil, {TaskID: "c", Status: CheckNoMutant}}); err != nil {
		t.Fatal(err)
	}
	got, err := readChecks(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": CheckWeak, "b": CheckDiscriminates, "c": CheckNoMutant}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for id, st := range want {
		if got[id] == nil || got[id].Status != st {
			t.Errorf("%s: %+v, want status %s", id, got[id], st)
		}
	}
}
