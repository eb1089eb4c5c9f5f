package importers

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// Files written by [CheckPool] into the pool directory.
const (
	CheckFile       = "reference_check.jsonl"
	CheckReportFile = "reference_check.md"
)

// LoadPool reads an imported pool's tasks.jsonl (with the importers'
// extension fields). Errors name the file and line.
func LoadPool(dir string) ([]*Task, error) {
	recs, _, err := jsonl.Read[Task](filepath.Join(dir, TasksFile), jsonl.ReadOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*Task, len(recs))
	for i := range recs {
		if recs[i].Task == nil {
			return nil, fmt.Errorf("%s: record %d is not a task", filepath.Join(dir, TasksFile), i+1)
		}
		out[i] = &recs[i]
	}
	return out, nil
}

// A GroupFigures counts one group's references.
type GroupFigures struct {
	Group          string `json:"group"`
	Tasks          int    `json:"tasks"`
	OriginalPassed int    `json:"original_passed"`
	MonitorPassed  int    `json:"monitor_passed"`
	InfraErrors    int    `json:"infra_errors"`
}

// A CheckSummary is the C1 table of a pool: per group and in total, with
// the original assemblies the references were run under ([Assemblies]).
type CheckSummary struct {
	Assemblies []Assembly     `json:"assemblies"`
	Groups     []GroupFigures `json:"groups"`
	Total      GroupFigures   `json:"total"`
	Skipped    []Skipped      `json:"skipped"`
}

// CheckPool runs [CheckReferences] over the pool in dir and writes
// dir/reference_check.jsonl (one CheckResult per task, appended as each
// completes, so a rerun resumes where it stopped; results of other scripts
// ([CheckDigest]) are dropped from it and checked again) and
// dir/reference_check.md (figures per group, then every failing reference
// with its reason, and the tasks skipped at import).
func CheckPool(ctx context.Context, dir string, cfg CheckConfig) (CheckSummary, error) {
	tasks, err := LoadPool(dir)
	if err != nil {
		return CheckSummary{}, err
	}
	path := filepath.Join(dir, CheckFile)
	done := map[string]CheckResult{}
	if _, err := os.Stat(path); err == nil {
		prev, _, err := jsonl.Read[CheckResult](path, jsonl.ReadOptions{SkipBad: true})
		if err != nil {
			return CheckSummary{}, err
		}
		stale := 0
		for _, r := range prev {
			switch {
			case r.Harness != CheckDigest():
				stale++
			case r.InfraError == "":
				done[r.TaskID] = r
			}
		}
		if stale > 0 {
			var keep []CheckResult
			for _, r := range prev {
				if r.Harness == CheckDigest() {
					keep = append(keep, r)
				}
			}
			if err := jsonl.Write(path, keep); err != nil {
				return CheckSummary{}, err
			}
		}
	}
	var pending []*Task
	for _, t := range tasks {
		if _, ok := done[t.TaskID]; !ok {
			pending = append(pending, t)
		}
	}
	w, err := jsonl.OpenAppend[CheckResult](path)
	if err != nil {
		return CheckSummary{}, err
	}
	defer w.Close()
	cfg.OnResult = func(r CheckResult) error {
		done[r.TaskID] = r
		return w.Write(r)
	}
	if _, err := CheckReferences(ctx, pending, cfg); err != nil {
		return CheckSummary{}, err
	}
	var results []CheckResult
	for _, t := range tasks {
		results = append(results, done[t.TaskID])
	}
	skipped, _, _ := jsonl.Read[Skipped](filepath.Join(dir, SkippedFile), jsonl.ReadOptions{SkipBad: true})
	sum := summarise(results, skipped)
	sum.Assemblies = Assemblies(tasks)
	if err := writeFile(dir, CheckReportFile, []byte(checkReport(sum, results))); err != nil {
		return sum, err
	}
	return sum, w.Close()
}

func summarise(results []CheckResult, skipped []Skipped) CheckSummary {
	by := map[string]*GroupFigures{}
	var total GroupFigures
	total.Group = "total"
	for _, r := range results {
		g := by[r.Group]
		if g == nil {
			g = &GroupFigures{Group: r.Group}
			by[r.Group] = g
		}
		for _, f := range []*GroupFigures{g, &total} {
			f.Tasks++
			if r.InfraError != "" {
				f.InfraErrors++
				continue
			}
			if r.Original.Passed {
				f.OriginalPassed++
			}
			if r.Monitor.Passed {
				f.MonitorPassed++
			}
		}
	}
	var groups []GroupFigures
	for _, k := range slices.Sorted(maps.Keys(by)) {
		groups = append(groups, *by[k])
	}
	if skipped == nil {
		skipped = []Skipped{}
	}
	return CheckSummary{Groups: groups, Total: total, Skipped: skipped}
}

// checkReport renders the C1 table and the failing references as Markdown.
func checkReport(sum CheckSummary, results []CheckResult) string {
	var b strings.Builder
	b.WriteString("# Reference check (C1)\n\n")
	b.WriteString("`original`: the pool's own harness assembly, each program run alone as plain Python:\n\n")
	for _, a := range sum.Assemblies {
		fmt.Fprintf(&b, "- %s (%d tasks of origin `%s`): %s\n", a.Harness, a.Tasks, a.Origin, a.Program)
	}
	b.WriteString("\n`monitored`: novelapi's assembly (hidden setup, target-API monitor, context, reference, execution test with the deferred spy check).\n\n")
	b.WriteString("| group | tasks | original passed | monitored passed | infra errors |\n|---|---:|---:|---:|---:|\n")
	for _, g := range append(sum.Groups, sum.Total) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", g.Group, g.Tasks, g.OriginalPassed, g.MonitorPassed, g.InfraErrors)
	}
	b.WriteString("\n## Failing references\n\n")
	n := 0
	for _, r := range results {
		if r.InfraError == "" && r.Original.Passed && r.Monitor.Passed {
			continue
		}
		n++
		fmt.Fprintf(&b, "- `%s` (%s, `%s`):", r.TaskID, r.Group, r.APIName)
		switch {
		case r.InfraError != "":
			fmt.Fprintf(&b, " infra error: %s\n", oneLine(r.InfraError))
			continue
		case !r.Original.Passed && !r.Monitor.Passed:
			fmt.Fprintf(&b, " fails both; original: %s (%s)", oneLine(r.Original.Reason), strings.Join(r.Original.Failed, ", "))
			if r.Monitor.Reason != r.Original.Reason {
				fmt.Fprintf(&b, "; monitored: %s", oneLine(r.Monitor.Reason))
			}
		case !r.Original.Passed:
			fmt.Fprintf(&b, " original only: %s (%s)", oneLine(r.Original.Reason), strings.Join(r.Original.Failed, ", "))
		default:
			fmt.Fprintf(&b, " monitored only: %s", oneLine(r.Monitor.Reason))
		}
		b.WriteString("\n")
	}
	if n == 0 {
		b.WriteString("None.\n")
	}
	if len(sum.Skipped) > 0 {
		b.WriteString("\n## Skipped at import\n\n")
		for _, s := range sum.Skipped {
			fmt.Fprintf(&b, "- `%s` (%s): %s\n", s.TaskID, s.Group, s.Reason)
		}
	}
	return b.String()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return tail(s, 240)
}
