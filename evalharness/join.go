package evalharness

import (
	"cmp"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/pool"
)

// joinJob is what the runner needs to join a completion of a task whose
// completions continue its prompt ([pool.Task.ContinuesPrompt]) as the
// pool's own harness joins it, prompt + completion (docs/importers.md
// "Joining a completion"; py/runner.py join_completion), and, for a
// renamed pool, to translate it back to the names of the library the
// environment has (translate_back).
//
// The runner decides, in order: an extracted completion (§3) that starts
// with one of Shown repeats the prompt, and runs as Runs followed by what
// follows the repeat; else a completion whose text as written (Response)
// parses after Rest continues the prompt, and runs as Runs followed by
// Response, exactly, with nothing between them; else the extracted
// completion runs in place of the masked region, as for any task. The
// part that is not Runs is what a renamed pool's harness translates.
type joinJob struct {
	// Keywords are a renamed pool's [original, renamed] pairs in the
	// table's order; nil for a pool that is not renamed.
	Keywords [][2]string `json:"keywords,omitempty"`
	// Shown are the texts of the prompt the solver reads that a
	// completion may repeat before continuing it (the whole prompt, its
	// part after the context), with leading white space removed as
	// extraction removes it, longest first.
	Shown []string `json:"shown"`
	// Rest is the part after the context of the prompt the solver reads,
	// which a completion continues (pool.Task.PromptRest, RenamedRest).
	Rest string `json:"rest"`
	// Runs is what runs in place of Rest: the same text, or for a renamed
	// pool the original prompt's part after the hidden setup.
	Runs string `json:"runs"`
	// Response is the response as written, before extraction (§3): the
	// text a HumanEval-style harness appends to the prompt.
	Response string `json:"response"`
}

// joinOf returns how task's completions are joined to its prompt, nil
// when they replace the masked region as written (the task does not
// continue a prompt).
func joinOf(t *pool.Task) *joinJob {
	var j *joinJob
	switch {
	case t.Renamed():
		j = &joinJob{Rest: t.RenamedRest, Runs: t.OriginalRest}
		for _, p := range t.Keywords {
			j.Keywords = append(j.Keywords, [2]string{p.Original, p.Renamed})
		}
		j.addShown(t.RenamedPrompt, t.RenamedRest)
	case t.PromptRest != "":
		j = &joinJob{Rest: t.PromptRest, Runs: t.PromptRest}
		j.addShown(t.ContextCode+t.PromptRest, t.PromptRest)
	default:
		return nil
	}
	slices.SortStableFunc(j.Shown, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return j
}

func (j *joinJob) addShown(texts ...string) {
	for _, s := range texts {
		if s = strings.TrimLeftFunc(s, isPySpace); s != "" && !slices.Contains(j.Shown, s) {
			j.Shown = append(j.Shown, s)
		}
	}
}

// setResponse makes response the completion of job: the plan of its
// extraction (§3) and, for a task that continues its prompt, the text as
// written.
func (job *runnerJob) setResponse(response string) {
	plan := planExtraction(response)
	job.Plan = &plan
	if job.Join != nil {
		j := *job.Join
		j.Response = response
		job.Join = &j
	}
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

// How a completion of a task that continues its prompt was joined to it
// (Verdict.Joined).
const (
	// JoinedRepeats: the completion repeats the prompt, or its part after
	// the context, and runs with the repeat given once.
	JoinedRepeats = "repeats"
	// JoinedContinues: the completion continues the prompt and runs after
	// its part after the context, exactly as written.
	JoinedContinues = "continues"
)
