package importers

import (
	"cmp"
	"slices"
)

// An Assembly names the program a pool's own harness runs for a
// reference, the one [CheckReferences] runs as the "original" outcome
// ([OriginalPrograms]) and compares with novelapi's.
type Assembly struct {
	// Origin is the tasks' Task.Origin ("humaneval", "codeupdatearena").
	Origin string `json:"origin"`
	// Harness names the original harness, file and function.
	Harness string `json:"harness"`
	// Program says how that harness joins the parts.
	Program string `json:"program"`
	// Tasks counts the pool's tasks checked against it.
	Tasks int `json:"tasks"`
}

// Original assemblies of the pools the importers read (docs/importers.md).
var (
	arenaAssembly = Assembly{Origin: ArenaOrigin,
		Harness: "CodeUpdateArena src/test_beds/test_bed.py check_unit_tests (src/utils/code.py concat_and_exec)",
		Program: `one program per unit test: the imports and the update's implementation, each between wrap_code_in_short_comment markers, the update statements, the solution, the test and its call, joined with "\n"`}
	humanEvalAssembly = Assembly{Origin: HumanEvalOrigin,
		Harness: "openai/human-eval human_eval/execution.py check_correctness; APICoder private_eval/execution.py check_correctness (the same join, check() for entry_point \"none\")",
		Program: `prompt + completion + "\n" + test + "\n" + "check(<entry_point>)"`}
	renamedAssembly = Assembly{Origin: HumanEvalOrigin,
		Harness: "APICoder private_eval/execution.py check_correctness with convert_back (is_convert_back True: MonkeyEval, BeatNumEval)",
		Program: `the original pool's prompt + convert_back(the renamed pool's completion, keyword table) + "\n" + the original's test + "\n" + "check(<entry_point>)" (check() for entry_point "none")`}
	priCoderAssembly = Assembly{Origin: PriCoderOrigin,
		Harness: "the PriCoder-style module as written, joined as openai/human-eval's execution.py joins it",
		Program: `prompt + completion + "\n" + test, then "\n" + "check(<entry_point>)" when the prompt defines a function, "check()" when the test defines check without parameters`}
	partsAssembly = Assembly{
		Harness: "none recorded (the task has no original_prefix)",
		Program: `hidden setup, context, reference and each unit test joined with "\n\n" (docs/protocol.md §4.1)`}
)

// OriginalAssembly returns the assembly [OriginalPrograms] runs for t, as
// the pool's own harness runs it (Tasks is 0).
func OriginalAssembly(t *Task) Assembly {
	a := partsAssembly
	switch {
	case t.OriginalPrefix == "":
	case t.Origin == ArenaOrigin:
		a = arenaAssembly
	case t.Origin == HumanEvalOrigin && t.Renamed():
		a = renamedAssembly
	case t.Origin == HumanEvalOrigin:
		a = humanEvalAssembly
	case t.Origin == PriCoderOrigin:
		a = priCoderAssembly
	}
	if a.Origin == "" {
		a.Origin = t.Origin
	}
	return a
}

// Assemblies returns the original assemblies of tasks, each with the
// number of tasks checked against it, in order of origin and harness.
func Assemblies(tasks []*Task) []Assembly {
	var out []Assembly
	for _, t := range tasks {
		a := OriginalAssembly(t)
		i := slices.IndexFunc(out, func(b Assembly) bool { return b.Origin == a.Origin && b.Harness == a.Harness })
		if i < 0 {
			out = append(out, a)
			i = len(out) - 1
		}
		out[i].Tasks++
	}
	slices.SortFunc(out, func(a, b Assembly) int {
		return cmp.Or(cmp.Compare(a.Origin, b.Origin), cmp.Compare(a.Harness, b.Harness))
	})
	return out
}
