package evalharness

import (
	"slices"

	"github.com/novelapi/novelapi/pool"
)

// MutantCellPrefix starts the cell of a prediction of [MutantSet]; the
// mutant kind follows ("mutant:wrong-keyword").
const MutantCellPrefix = "mutant:"

// MutantSet returns one prediction per task whose greedy sample is the
// task's reference broken in one of the label suite's ways ([LabelMutants],
// docs/mutants.md §6): of the kinds that apply to a task, the one used
// least so far (the first of [LabelMutantKinds] on a tie), so that over a
// pool each kind is used about as often. The sample is the mutant's text
// as the suite evaluates it (no fence; "" for an empty answer); the cell
// names the kind (MutantCellPrefix + kind), which eval run records as the
// result's condition, so a run's by-condition breakdown gives each kind's
// rates. siblings maps a target API to a function of its module to call
// instead (sibling-api); nil leaves that kind out. Evaluating the set
// gives PriCoder's measures (invocation, non-existent calls, signature
// errors) on answers whose faults are known. A task of a renamed pool has
// its completions translated back ([pool.Task.Keywords]), so its mutants
// are of its renamed_reference, the reference in the names its solver
// uses; the kinds that need the target's real name in the text do not
// apply there.
func MutantSet(tasks []*pool.Task, siblings map[string]string) []*pool.Prediction {
	used := map[string]int{}
	out := make([]*pool.Prediction, 0, len(tasks))
	for _, t := range tasks {
		base := t
		if t.Renamed() && t.RenamedReference != "" {
			c := *t
			c.MaskedRegion = t.RenamedReference
			base = &c
		}
		ms := LabelMutants(base, siblings[t.APIName])
		if len(ms) == 0 {
			continue
		}
		best := slices.MinFunc(ms, func(a, b Mutant) int { return used[a.Name] - used[b.Name] })
		used[best.Name]++
		out = append(out, &pool.Prediction{TaskID: t.TaskID, APIName: t.APIName, Cell: MutantCellPrefix + best.Name,
			Samples: []string{best.Code}})
	}
	return out
}
