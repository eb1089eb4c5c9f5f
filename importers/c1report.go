package importers

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

// A RunGroup counts one group's references in a harness-level C1 run.
type RunGroup struct {
	Group       string `json:"group"`
	Tasks       int    `json:"tasks"`     // tasks of the pool in the group
	Evaluated   int    `json:"evaluated"` // with a result that is not an infra error
	Passed      int    `json:"passed"`
	InfraErrors int    `json:"infra_errors"`
	Skipped     int    `json:"skipped"` // left out at import (skipped.jsonl)
}

// A RunFailure is one failing reference of a C1 run with its reason.
type RunFailure struct {
	TaskID string `json:"task_id"`
	Group  string `json:"group"`
	Status string `json:"status"` // the harness's status (evalharness.Status*)
	Label  string `json:"label"`
	// Reason is the last exception line of the run's stderr, with the unit
	// test it arose in when the traceback names one.
	Reason string `json:"reason"`
}

// RunC1 reads the pool in poolDir and the results of `novelapi eval run`
// of its reference predictions in runDirs (pool.ResultsFile; a task's
// result in a later directory replaces an earlier one, so a re-run of part
// of the pool after a harness fix goes last), and returns the figures per
// group (sorted; the total last) and every failing reference, in pool
// order. Tasks without a result count as not evaluated.
func RunC1(poolDir string, runDirs ...string) ([]RunGroup, []RunFailure, error) {
	tasks, err := LoadPool(poolDir)
	if err != nil {
		return nil, nil, err
	}
	byID := map[string]pool.TaskResult{}
	for _, dir := range runDirs {
		results, _, err := pool.ReadResults(filepath.Join(dir, pool.ResultsFile))
		if err != nil {
			return nil, nil, err
		}
		for _, r := range results {
			if r.Status == pool.StatusNoPrediction {
				continue // a partial re-run: the task's result is elsewhere
			}
			byID[r.TaskID] = r
		}
	}
	groups := map[string]*RunGroup{}
	get := func(g string) *RunGroup {
		if groups[g] == nil {
			groups[g] = &RunGroup{Group: g}
		}
		return groups[g]
	}
	var fails []RunFailure
	for _, t := range tasks {
		g := get(t.Group)
		g.Tasks++
		r, ok := byID[t.TaskID]
		switch {
		case !ok:
		case r.InfraError():
			g.InfraErrors++
		default:
			g.Evaluated++
			if r.Passed {
				g.Passed++
				continue
			}
			fails = append(fails, RunFailure{TaskID: t.TaskID, Group: t.Group, Status: r.Status, Label: r.Label, Reason: failReason(r)})
		}
	}
	skipped, _, _ := jsonl.Read[Skipped](filepath.Join(poolDir, SkippedFile), jsonl.ReadOptions{SkipBad: true})
	for _, s := range skipped {
		get(s.Group).Skipped++
	}
	var out []RunGroup
	total := RunGroup{Group: "total"}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := *groups[k]
		out = append(out, g)
		total.Tasks += g.Tasks
		total.Evaluated += g.Evaluated
		total.Passed += g.Passed
		total.InfraErrors += g.InfraErrors
		total.Skipped += g.Skipped
	}
	return append(out, total), fails, nil
}

var (
	excLine = regexp.MustCompile(`(?m)^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b.*)$`)
	// testLine matches a frame, as the harness names it since tracebacks
	// give the part's own line ("line 40 of the task's test, in test_one")
	// or as older results give it (`File "_solution.py", line 440, in ...`).
	testLine = regexp.MustCompile(`line \d+(?: of [^,\n]+)?, in (test_\w+)`)
)

// failReason returns the last exception line of the result's stderr tail,
// with the innermost unit test named in the traceback; for runs ended by a
// limit, the limit and the wall time.
func failReason(r pool.TaskResult) string {
	stderr := r.Error
	if strings.TrimSpace(stderr) == "" {
		retried := ""
		if r.Retried {
			retried = ", after a retry"
		}
		switch r.Status {
		case pool.StatusTimeout:
			return fmt.Sprintf("timed out at the task's wall limit (%.0f s%s)", float64(r.WallMS)/1000, retried)
		case pool.StatusMemoryLimit:
			return fmt.Sprintf("killed at the memory limit after %.1f s", float64(r.WallMS)/1000)
		}
	}
	reason := ""
	if m := excLine.FindAllStringSubmatch(stderr, -1); m != nil {
		reason = strings.TrimSpace(m[len(m)-1][1])
	} else if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) > 0 {
		reason = strings.TrimSpace(lines[len(lines)-1])
	}
	if reason == "" {
		reason = "(no stderr)"
	}
	reason = oneLine(reason)
	if m := testLine.FindAllStringSubmatch(stderr, -1); m != nil {
		reason += " (in " + m[len(m)-1][1] + ")"
	}
	return reason
}

// C1Markdown renders RunC1's figures and failures as Markdown: a table per
// group (plus a non-torch line: the original study's Debian figure
// excludes torch) and every failing reference with its status, label and
// reason.
func C1Markdown(groups []RunGroup, fails []RunFailure) string {
	var b strings.Builder
	b.WriteString("| package | examples | evaluated | passed | failed | infra errors | skipped at import |\n|---|---:|---:|---:|---:|---:|---:|\n")
	var nt RunGroup
	for _, g := range groups {
		name := g.Group
		if name == "total" {
			name = "**total**"
		} else if g.Group != "torch" {
			nt.Tasks += g.Tasks
			nt.Evaluated += g.Evaluated
			nt.Passed += g.Passed
			nt.InfraErrors += g.InfraErrors
			nt.Skipped += g.Skipped
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", name, g.Tasks, g.Evaluated, g.Passed, g.Evaluated-g.Passed, g.InfraErrors, g.Skipped)
	}
	fmt.Fprintf(&b, "| non-torch | %d | %d | %d | %d | %d | %d |\n", nt.Tasks, nt.Evaluated, nt.Passed, nt.Evaluated-nt.Passed, nt.InfraErrors, nt.Skipped)
	b.WriteString("\n## Failing references (with reasons)\n\n")
	if len(fails) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range fails {
		fmt.Fprintf(&b, "- `%s` (%s): %s, %s: %s\n", f.TaskID, f.Group, f.Status, f.Label, f.Reason)
	}
	return b.String()
}
