package importers_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/importers"
)

// import check names, per origin, the original harness whose assembly it
// ran: CodeUpdateArena's test bed, HumanEval's check_correctness for
// PandasEval, APICoder's with convert_back for MonkeyEval, the module as
// written for PriCoder.
func TestAssemblies(t *testing.T) {
	_, arena, _ := importArena(t)
	_, pandas := importAPICoder(t, "pandas", "bookworm-sci")
	_, monkey := importAPICoder(t, "monkey", "bookworm-sci")
	_, pri := importPriCoder(t)
	var all []*importers.Task
	all = append(all, arena...)
	all = append(all, slices.Collect(maps.Values(pandas))...)
	all = append(all, slices.Collect(maps.Values(monkey))...)
	all = append(all, pri...)
	got := importers.Assemblies(all)
	want := []struct {
		origin, harness string
		tasks           int
	}{
		{importers.ArenaOrigin, "CodeUpdateArena src/test_beds/test_bed.py check_unit_tests", len(arena)},
		{importers.HumanEvalOrigin, "APICoder private_eval/execution.py check_correctness with convert_back", len(monkey)},
		{importers.HumanEvalOrigin, "openai/human-eval human_eval/execution.py check_correctness", len(pandas)},
		{importers.PriCoderOrigin, "PriCoder-style module as written", len(pri)},
	}
	if len(got) != len(want) {
		t.Fatalf("Assemblies = %+v; want %d", got, len(want))
	}
	for i, w := range want {
		if g := got[i]; g.Origin != w.origin || !strings.Contains(g.Harness, w.harness) || g.Tasks != w.tasks || g.Program == "" {
			t.Errorf("assembly %d = %+v; want origin %s, harness naming %q, %d tasks", i, g, w.origin, w.harness, w.tasks)
		}
	}
}
