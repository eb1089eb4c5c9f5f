package evalharness_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
)

// runFixture runs the fake pool into dir with the given condition and source.
func runFixture(t *testing.T, dir, condition, source string, n int) {
	t.Helper()
	tasks, preds := fakePool(n)
	if _, err := evalharness.Run(t.Context(), evalharness.RunConfig{Tasks: tasks, Predictions: preds, OutDir: dir, Log: runLog,
		Harness: &fakeHarness{flaky: map[string]bool{}}, Condition: condition, Source: source, ClassifyFailures: true}); err != nil {
		t.Fatal(err)
	}
}

// externalRef matches any attribute or CSS reference to a network resource.
var externalRef = regexp.MustCompile(`(?i)(src|href|xlink:href)\s*=\s*["']?\s*(https?:)?//|url\(\s*["']?(https?:)?//|@import`)

func checkSelfContained(t *testing.T, html string) {
	t.Helper()
	if m := externalRef.FindString(html); m != "" {
		t.Errorf("report.html references an external resource: %q", m)
	}
	for _, tag := range []string{"<script", "<link", "<iframe", "<img"} {
		if strings.Contains(strings.ToLower(html), tag) {
			t.Errorf("report.html contains %s", tag)
		}
	}
	// Every inline SVG is well-formed XML.
	for _, svg := range regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(html, -1) {
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := d.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("inline SVG is not well-formed: %v", err)
				}
				break
			}
		}
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	runFixture(t, dir, "S+E", "", 21)
	if err := evalharness.Report(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, pool.ReportMDFile))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, pool.ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	s, err := evalharness.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## By condition", "| S+E | 21 | 57.1%", "## By library", "| numpy |", "WrongParam", "## By novelty"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if s.PassAt1 < 0.571 || s.PassAt1 > 0.572 {
		t.Errorf("fixture pass@1 = %v; the expectations above assume 12/21", s.PassAt1)
	}
	h := string(html)
	for _, want := range []string{"<svg", "pass@1 per condition", "labels per condition", "<td>scipy</td>", "WrongLogic"} {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if n := strings.Count(h, "<svg"); n < 2 {
		t.Errorf("report.html has %d SVG charts; want 2", n)
	}
	checkSelfContained(t, h)
	if d := os.Getenv("NOVELAPI_REPORT_DUMP"); d != "" {
		os.WriteFile(filepath.Join(d, "report.html"), html, 0o644)
		os.WriteFile(filepath.Join(d, "report.md"), md, 0o644)
	}
}

func TestReport_NoResults(t *testing.T) {
	if err := evalharness.Report(t.TempDir()); err == nil {
		t.Error("Report of an empty directory succeeded")
	}
}

func TestReportSweep(t *testing.T) {
	root := t.TempDir()
	// rq1 (oracle) and rq2 (retrieval) runs with cells per condition, as in
	// the protocol's outputs/runs/<run>/<cell>/ layout.
	for _, c := range []string{"S", "Full"} {
		runFixture(t, filepath.Join(root, "rq1-qwen", c), c, "", 14)
		runFixture(t, filepath.Join(root, "rq2-qwen", c), c, "", 7)
	}
	out := filepath.Join(root, "sweep")
	if err := evalharness.ReportSweep([]string{filepath.Join(root, "rq1-qwen"), filepath.Join(root, "rq2-qwen")}, out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, pool.ReportMDFile))
	if err != nil {
		t.Fatal(err)
	}
	// The rq2 cells hold t000-t006 only: the main table compares all
	// four cells on those 7 tasks (4 pass in each); the second table shows
	// fakePool(14)'s own 8 passes of 14.
	for _, want := range []string{"| Condition | oracle pass@1 (n) | retrieved pass@1 (n) | retrieved − oracle (pp) |", "| S | 57.1% (7) | 57.1% (7) | +0.0 |", "| Full |",
		"the 4 cells on the 7 tasks scored in every cell, of 14 tasks", "## Each cell on its own tasks", "| S | 57.1% (14) | 57.1% (7) | +0.0 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("sweep report.md lacks %q:\n%s", want, md)
		}
	}
	// S is listed before Full (protocol order).
	if strings.Index(string(md), "| S |") > strings.Index(string(md), "| Full |") {
		t.Error("sweep rows are not in protocol order")
	}
	html, err := os.ReadFile(filepath.Join(out, pool.ReportHTML))
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, string(html))
}

// writeResults writes results as results.jsonl into dir.
func writeResults(t *testing.T, dir string, results []pool.TaskResult) {
	t.Helper()
	var b strings.Builder
	for _, r := range results {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pool.ResultsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReport_Statuses(t *testing.T) {
	dir := t.TempDir()
	var rs []pool.TaskResult
	add := func(status string, n int) {
		for range n {
			rs = append(rs, pool.TaskResult{TaskID: fmt.Sprintf("t%d", len(rs)), Library: "numpy", Condition: "S",
				Status: status, Passed: status == pool.StatusPass, Label: "WrongLogic"})
		}
	}
	add(pool.StatusPass, 4)
	add(pool.StatusWrongAnswer, 2)
	add(pool.StatusHarnessTamper, 1)
	add(pool.StatusNoPrediction, 2)
	add(pool.StatusTimeout, 1)
	add(pool.StatusInfraError, 3)
	writeResults(t, dir, rs)
	if err := evalharness.Report(dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, pool.ReportMDFile))
	html, _ := os.ReadFile(filepath.Join(dir, pool.ReportHTML))
	// n = 10 scored tasks; the 3 infra errors are excluded from n.
	wantMD := []string{"## Statuses", "| PASS | 4 | 40.0% |", "| WRONG_ANSWER | 2 | 20.0% |", "| HARNESS_TAMPER | 1 | 10.0% |",
		"| TIMEOUT | 1 | 10.0% |", "| NO_PREDICTION | 2 | 20.0% |", "| INFRA_ERROR | 3 | excluded |"}
	for _, want := range wantMD {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	// Verdict order: PASS first, INFRA_ERROR last.
	if i, j := strings.Index(string(md), "| PASS |"), strings.Index(string(md), "| INFRA_ERROR |"); i > j {
		t.Error("report.md lists INFRA_ERROR before PASS")
	}
	for _, want := range []string{"<h2>Statuses</h2>", "<td><code>HARNESS_TAMPER</code></td><td>1</td><td>10.0%</td>",
		"<td><code>NO_PREDICTION</code></td><td>2</td><td>20.0%</td>", "<td><code>INFRA_ERROR</code></td><td>3</td><td>excluded</td>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	checkSelfContained(t, string(html))
}

// TestReportSweep_CommonTasks compares cells with different task sets (a
// prediction missing in one cell, a task only in the other) on the tasks
// both scored.
func TestReportSweep_CommonTasks(t *testing.T) {
	root := t.TempDir()
	res := func(id, status string) pool.TaskResult {
		return pool.TaskResult{TaskID: id, Library: "numpy", Status: status, Passed: status == pool.StatusPass}
	}
	pass, fail, none := pool.StatusPass, pool.StatusWrongAnswer, pool.StatusNoPrediction
	writeResults(t, filepath.Join(root, "rq1", "S"), []pool.TaskResult{res("t1", pass), res("t2", pass), res("t3", pass), res("t4", fail)})
	writeResults(t, filepath.Join(root, "rq2", "S"), []pool.TaskResult{res("t1", pass), res("t2", none), res("t3", pass), res("t4", fail), res("t5", pass)})
	out := filepath.Join(root, "sweep")
	if err := evalharness.ReportSweep([]string{filepath.Join(root, "rq1"), filepath.Join(root, "rq2")}, out); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(out, pool.ReportMDFile))
	html, _ := os.ReadFile(filepath.Join(out, pool.ReportHTML))
	// Common tasks t1, t3, t4: 2 of 3 pass in both. Own: oracle 3/4,
	// retrieved 3/5 (the missing prediction fails).
	main, own, _ := strings.Cut(string(md), "## Each cell on its own tasks")
	for _, want := range []string{"Different task sets", "the 2 cells on the 3 tasks scored in every cell, of 5 tasks", "| S | 66.7% (3) | 66.7% (3) | +0.0 |"} {
		if !strings.Contains(main, want) {
			t.Errorf("sweep report.md main part lacks %q:\n%s", want, md)
		}
	}
	if want := "| S | 75.0% (4) | 60.0% (5) | -15.0 |"; !strings.Contains(own, want) {
		t.Errorf("sweep report.md own-tasks table lacks %q:\n%s", want, md)
	}
	for _, want := range []string{"Different task sets", "<td>66.7% (3)</td><td>66.7% (3)</td>", "<h2>Each cell on its own tasks</h2>", "<td>75.0% (4)</td><td>60.0% (5)</td><td>-15.0</td>"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("sweep report.html lacks %q", want)
		}
	}
	checkSelfContained(t, string(html))

	// Equal task sets: no note, no second table.
	writeResults(t, filepath.Join(root, "rq2", "S"), []pool.TaskResult{res("t1", pass), res("t2", fail), res("t3", pass), res("t4", fail)})
	if err := evalharness.ReportSweep([]string{filepath.Join(root, "rq1"), filepath.Join(root, "rq2")}, out); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(out, pool.ReportMDFile))
	if strings.Contains(string(md), "Different task sets") || strings.Contains(string(md), "own tasks") || !strings.Contains(string(md), "| S | 75.0% (4) | 50.0% (4) | -25.0 |") {
		t.Errorf("sweep report.md over equal task sets:\n%s", md)
	}
}

// TestReport_Missing: a run of a HumanEval-style pool (NumpyEval, 14 of
// 101 tasks predicted, recorded before missing tasks carried the run's
// condition) reports its 87 missing tasks and the denominator sentence,
// and puts them under the run's condition, with no empty-named condition.
func TestReport_Missing(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{pool.ResultsFile, pool.MetaFile} {
		data, err := os.ReadFile(filepath.Join("testdata", "report", "numpyeval-missing", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := evalharness.Report(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{pool.ReportMDFile, pool.ReportHTML} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got := string(data)
		for _, want := range []string{"Missing (no prediction; HumanEval-style: not scored): 87 tasks.", "pass@k, exec@k and the rates are over the 14 scored tasks (n_tasks); 87 tasks of HumanEval-style pools without a prediction are missing"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q", f, want)
			}
		}
		if strings.Contains(got, "| (unknown) | 0 |") || strings.Contains(got, "<td>(unknown)</td><td>0</td>") {
			t.Errorf("%s has an (unknown) condition of 0 tasks", f)
		}
	}
	results, _, err := pool.ReadResults(filepath.Join(dir, pool.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	by := evalharness.ComputeBreakdowns(results).Condition
	if m, ok := by["none"]; len(by) != 1 || !ok || m.N != 14 || m.Missing != 87 {
		t.Errorf("by_condition %v; want none alone, n_tasks 14, missing 87", slices.Sorted(maps.Keys(by)))
	}
}
