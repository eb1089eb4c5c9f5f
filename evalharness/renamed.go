package evalharness

import (
	"cmp"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/pool"
)

// renamingJob is what the runner needs to translate a completion of a
// renamed pool's task back to the names of the library the environment
// has, as the pool's own harness does (pool.Task.Keywords;
// docs/importers.md "APICoder"; py/runner.py translate_back).
type renamingJob struct {
	// Keywords are the table's [original, renamed] pairs in its order.
	Keywords [][2]string `json:"keywords"`
	// Shown are the texts of the renamed prompt a completion may repeat
	// before continuing it (the whole prompt, the part after its
	// context), with leading white space removed as extraction removes
	// it, longest first.
	Shown []string `json:"shown"`
	// Runs is what runs in place of a repeated Shown text: the original
	// prompt's part after the hidden setup.
	Runs string `json:"runs"`
}

// renamingOf returns the translation of task's completions, nil when the
// task is not from a renamed pool.
func renamingOf(t *pool.Task) *renamingJob {
	if !t.Renamed() {
		return nil
	}
	j := &renamingJob{Runs: t.OriginalRest}
	for _, p := range t.Keywords {
		j.Keywords = append(j.Keywords, [2]string{p.Original, p.Renamed})
	}
	for _, s := range []string{t.RenamedPrompt, t.RenamedRest} {
		if s = strings.TrimLeftFunc(s, isPySpace); s != "" && !slices.Contains(j.Shown, s) {
			j.Shown = append(j.Shown, s)
		}
	}
	slices.SortStableFunc(j.Shown, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return j
}

// Untranslated returns a copy of t whose completions run as written, for
// code in the names of the library the environment has: the task's own
// masked region and mutants of it (the label suite, the mutant check). For
// a task of a renamed pool ([pool.Task.Renamed]) the harness otherwise
// translates each completion back from the renamed names, and code in the
// real names becomes "error!" there, as in the pool's own harness; other
// tasks are returned as they are.
func Untranslated(t *pool.Task) *pool.Task {
	if !t.Renamed() {
		return t
	}
	c := *t
	c.Keywords = nil
	return &c
}
