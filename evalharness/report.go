package evalharness

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	texttemplate "text/template"

	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/pool"
)

//go:embed report/*.tmpl
var reportFS embed.FS

// labelColors colours each label in the report charts.
var labelColors = map[string]string{
	"Pass":              "#2e7d32",
	"WrongAPISelection": "#c62828",
	"WrongImport":       "#ef6c00",
	"WrongSyntax":       "#6a1b9a",
	"WrongParam":        "#1565c0",
	"WrongShapeDtype":   "#00838f",
	"WrongLogic":        "#f9a825",
	"":                  "#9e9e9e",
}

// conditionOrder is the protocol's order of the 12 conditions (§2.1);
// reports list known conditions in this order and any others after them.
var conditionOrder = []string{"none", "S_name", "S", "E", "M", "C", "S+M", "S+E", "S+C", "S+M+C", "S+E+C", "Full"}

func sortConditions(cs []string) []string {
	rank := func(c string) int {
		if i := slices.Index(conditionOrder, c); i >= 0 {
			return i
		}
		return len(conditionOrder)
	}
	slices.SortStableFunc(cs, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	return cs
}

// reportData is what the report templates render.
type reportData struct {
	Title      string
	Dir        string
	Summary    Summary
	Meta       *EvalMeta
	Conditions []groupRow // in protocol order
	Libraries  []groupRow
	Difficulty []groupRow
	Novelty    []groupRow
	Labels     []string // label columns present, in stacking order
	Statuses   []statusRow
	PassChart  htmltemplate.HTML
	LabelChart htmltemplate.HTML
}

// groupRow is one row of a breakdown table.
type groupRow struct {
	Name string
	M    Metrics
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

func pctp(v *float64) string {
	if v == nil {
		return "–"
	}
	return pct(*v)
}

// Report writes report.md and report.html into dir from its results.jsonl
// (and eval_meta.json when present). The HTML is self-contained: styles and
// SVG charts (pass@1 per condition, label stacks per condition) are inline,
// and it references no external resource, so it opens offline. Metrics are
// recomputed from results.jsonl, so a report never disagrees with it.
func Report(dir string) error {
	results, _, err := pool.ReadResults(filepath.Join(dir, pool.ResultsFile))
	if err != nil {
		return err
	}
	if len(results) == 0 {
		return fmt.Errorf("report %s: no results in %s", dir, pool.ResultsFile)
	}
	var meta *EvalMeta
	if m, err := ReadMeta(dir); err == nil {
		meta = &m
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	version := ""
	if meta != nil {
		version = meta.EvaluatorVersion
	}
	s := Summarize(results, version)
	d := reportData{Title: "novelapi evaluation: " + filepath.Base(filepath.Clean(dir)), Dir: dir, Summary: s, Meta: meta}
	d.Conditions = rows(s.Condition, true)
	d.Libraries = rows(s.Library, false)
	d.Difficulty = rows(s.Difficulty, false)
	d.Novelty = rows(s.Novelty, false)
	d.Labels = presentLabels(s.Labels)
	d.Statuses = statusRows(s.Metrics)
	d.PassChart = htmltemplate.HTML(barChart(d.Conditions))
	d.LabelChart = htmltemplate.HTML(stackChart(d.Conditions, d.Labels))
	md, html, err := renderReport("report", d)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, pool.ReportMDFile), md, 0o644); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, pool.ReportHTML), html, 0o644)
}

// rows turns a breakdown into table rows: conditions in protocol order,
// anything else by name.
func rows(groups map[string]Metrics, conditions bool) []groupRow {
	keys := slices.Sorted(maps.Keys(groups))
	if conditions {
		keys = sortConditions(keys)
	}
	out := make([]groupRow, 0, len(keys))
	for _, k := range keys {
		name := k
		if name == "" {
			name = "(unknown)"
		}
		out = append(out, groupRow{Name: name, M: groups[k]})
	}
	return out
}

// statusOrder lists the run statuses in the docs/sandbox.md §4.1 verdict
// order with PASS first; NO_PREDICTION and INFRA_ERROR come last.
var statusOrder = []string{pool.StatusPass, pool.StatusWrongAnswer, pool.StatusAPINotCalled, pool.StatusRuntimeError, pool.StatusCompileError,
	pool.StatusHarnessTamper, pool.StatusTimeout, pool.StatusMemoryLimit, pool.StatusOutputLimit, pool.StatusResourceLimit, pool.StatusCrash,
	pool.StatusNoPrediction, pool.StatusInfraError}

// A statusRow is one line of a report's status table: how many greedy
// samples ended with Status, and their share of the scored tasks (N).
type statusRow struct {
	Status string
	Count  int
	Share  string // of N; "excluded" for INFRA_ERROR, which N leaves out
}

// statusRows counts m's statuses in statusOrder, then any others by name;
// INFRA_ERROR comes from m.InfraErrors (excluded from N, docs/sandbox.md §2).
func statusRows(m Metrics) []statusRow {
	counts := maps.Clone(m.Statuses)
	if counts == nil {
		counts = map[string]int{}
	}
	counts[pool.StatusInfraError] += len(m.InfraErrors)
	keys := slices.Clone(statusOrder)
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var out []statusRow
	for _, k := range keys {
		c := counts[k]
		if c == 0 {
			continue
		}
		r := statusRow{Status: k, Count: c, Share: "–"}
		switch {
		case k == pool.StatusInfraError:
			r.Share = "excluded"
		case m.N > 0:
			r.Share = pct(float64(c) / float64(m.N))
		}
		if k == "" {
			r.Status = "(none)"
		}
		out = append(out, r)
	}
	return out
}

// presentLabels returns "Pass", the six failure labels and "" (unlabelled)
// that occur in counts, in stacking order, then any unexpected labels.
func presentLabels(counts map[string]int) []string {
	order := append([]string{"Pass"}, pool.Labels...)
	order = append(order, "")
	var out []string
	for _, l := range order {
		if counts[l] > 0 {
			out = append(out, l)
		}
	}
	for _, l := range slices.Sorted(maps.Keys(counts)) {
		if !slices.Contains(out, l) && counts[l] > 0 {
			out = append(out, l)
		}
	}
	return out
}

// renderReport executes name.md.tmpl and name.html.tmpl with d.
func renderReport(name string, d any) (md, html []byte, err error) {
	funcs := map[string]any{"pct": pct, "pctp": pctp, "labelName": labelName, "color": labelColor, "passk": passk, "barWidth": barWidth}
	tt, err := texttemplate.New(name+".md.tmpl").Funcs(funcs).ParseFS(reportFS, "report/"+name+".md.tmpl")
	if err != nil {
		return nil, nil, err
	}
	ht, err := htmltemplate.New(name+".html.tmpl").Funcs(funcs).ParseFS(reportFS, "report/"+name+".html.tmpl", "report/style.tmpl")
	if err != nil {
		return nil, nil, err
	}
	var mb, hb bytes.Buffer
	if err := tt.Execute(&mb, d); err != nil {
		return nil, nil, fmt.Errorf("render %s.md: %w", name, err)
	}
	if err := ht.Execute(&hb, d); err != nil {
		return nil, nil, fmt.Errorf("render %s.html: %w", name, err)
	}
	return mb.Bytes(), hb.Bytes(), nil
}

func labelName(l string) string {
	if l == "" {
		return "(unlabelled)"
	}
	return l
}

func labelColor(l string) string {
	if c, ok := labelColors[l]; ok {
		return c
	}
	return "#616161"
}

// passk formats m's pass@k for k, or "–" when undefined.
func passk(m Metrics, k int) string {
	if v, ok := m.PassAtK[itoa(k)]; ok {
		return pct(v)
	}
	return "–"
}

// Chart geometry, in SVG user units (px).
const (
	chartLabelW = 90
	chartBarW   = 420
	chartRowH   = 22
	chartPad    = 6
)

// barChart draws pass@1 per row as horizontal bars with the value printed
// after each bar.
func barChart(rs []groupRow) string {
	var b strings.Builder
	h := len(rs)*chartRowH + 2*chartPad + 16
	w := chartLabelW + chartBarW + 70
	fmt.Fprintf(&b, `<svg role="img" aria-label="pass@1 per condition" width="%d" height="%d" viewBox="0 0 %d %d">`, w, h, w, h)
	fmt.Fprintf(&b, `<title>pass@1 per condition</title>`)
	for i, r := range rs {
		y := chartPad + i*chartRowH
		bw := int(r.M.PassAt1*chartBarW + 0.5)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="lbl">%s</text>`, chartLabelW-6, y+15, svgEscape(r.Name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#e0e0e0"/>`, chartLabelW, y+3, chartBarW, chartRowH-6)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#1565c0"><title>%s: %s of %d</title></rect>`,
			chartLabelW, y+3, bw, chartRowH-6, svgEscape(r.Name), pct(r.M.PassAt1), r.M.N)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="val">%s</text>`, chartLabelW+chartBarW+6, y+15, pct(r.M.PassAt1))
	}
	axisY := chartPad + len(rs)*chartRowH + 12
	for _, t := range []int{0, 25, 50, 75, 100} {
		x := chartLabelW + t*chartBarW/100
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" class="tick">%d%%</text>`, x, axisY, t)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// stackChart draws, per row, the share of each label as a 100% stacked bar,
// with a legend below.
func stackChart(rs []groupRow, labels []string) string {
	var b strings.Builder
	legendY := chartPad + len(rs)*chartRowH + 8
	h := legendY + 18*((len(labels)+2)/3) + chartPad
	w := chartLabelW + chartBarW + 70
	fmt.Fprintf(&b, `<svg role="img" aria-label="labels per condition" width="%d" height="%d" viewBox="0 0 %d %d">`, w, h, w, h)
	fmt.Fprintf(&b, `<title>labels per condition</title>`)
	for i, r := range rs {
		y := chartPad + i*chartRowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="lbl">%s</text>`, chartLabelW-6, y+15, svgEscape(r.Name))
		total := 0
		for _, c := range r.M.Labels {
			total += c
		}
		if total == 0 {
			continue
		}
		x := float64(chartLabelW)
		for _, l := range labels {
			c := r.M.Labels[l]
			if c == 0 {
				continue
			}
			bw := float64(c) / float64(total) * chartBarW
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s %d (%s)</title></rect>`,
				x, y+3, bw, chartRowH-6, labelColor(l), svgEscape(r.Name), svgEscape(labelName(l)), c, pct(float64(c)/float64(total)))
			x += bw
		}
	}
	for i, l := range labels {
		x := chartLabelW + (i%3)*170
		y := legendY + (i/3)*18
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="tick">%s</text>`,
			x, y, labelColor(l), x+16, y+10, svgEscape(labelName(l)))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

var svgEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func svgEscape(s string) string { return svgEscaper.Replace(s) }

// barWidth is the width in px of an inline table bar for fraction v.
func barWidth(v float64) int { return int(v*120 + 0.5) }

// Knowledge sources of a sweep (docs/protocol.md §1.8: rq1 runs are
// oracle, rq2 runs retrieval).
const (
	SourceOracle    = "oracle"
	SourceRetrieved = "retrieved"
)

// sweepData is what the sweep templates render.
type sweepData struct {
	Title   string
	Sources []string
	Rows    []sweepRow
	Gap     bool // both oracle and retrieved present: show retrieved − oracle
	Chart   htmltemplate.HTML
	Dirs    []string
	// Differ says the cells' own task sets differ from Common: Rows then
	// compare every cell on the Common tasks, and Own shows each cell on
	// its own tasks.
	Differ bool
	Common int // tasks scored in every cell
	Union  int // tasks scored in any cell
	NCells int // cells (knowledge source × condition)
	Own    []sweepRow
}

// sweepRow is one condition of the sweep table.
type sweepRow struct {
	Condition string
	Cells     []*Metrics // per source; nil when the source lacks the condition
	Gap       string     // retrieved − oracle in percentage points, "–" when undefined, "" without both sources
}

// ReportSweep compares several run directories in one condition ×
// knowledge-source table (pass@1 per condition, oracle vs retrieved) and
// writes report.md and report.html into out (created if needed).
//
// The table compares the cells on the same tasks: those scored in every
// cell (see commonTasks). When a cell's own task set differs (missing
// predictions, failed generations, infrastructure errors), the report says
// so with the counts and adds a table of each cell on its own tasks, with
// its own n.
//
// Each dir is either a run cell (it holds results.jsonl) or a run holding
// cells as subdirectories (the protocol's outputs/runs/<run>/<cell>/). A
// cell's knowledge source is eval_meta.json's source, else inferred from its
// path ("rq2" or "retriev" → retrieved, "rq1" or "oracle" → oracle), else
// the run directory's name. A result without a condition takes its cell's
// condition from eval_meta.json or, failing that, the cell directory name.
func ReportSweep(dirs []string, out string) error {
	bySource := map[string][]pool.TaskResult{}
	for _, dir := range dirs {
		cells, err := runCells(dir)
		if err != nil {
			return err
		}
		if len(cells) == 0 {
			return fmt.Errorf("sweep: %s holds no %s (directly or in a subdirectory)", dir, pool.ResultsFile)
		}
		for _, cell := range cells {
			results, _, err := pool.ReadResults(filepath.Join(cell, pool.ResultsFile))
			if err != nil {
				return err
			}
			meta, err := ReadMeta(cell)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			src := meta.Source
			if src == "" {
				src = inferSource(cell, dir)
			}
			cond := meta.Condition
			if cond == "" {
				cond = filepath.Base(filepath.Clean(cell))
			}
			for _, r := range results {
				if r.Condition == "" {
					r.Condition = cond
				}
				bySource[src] = append(bySource[src], r)
			}
		}
	}
	d := sweepData{Title: "novelapi sweep: pass@1 per condition and knowledge source", Dirs: dirs}
	d.Sources = slices.Sorted(maps.Keys(bySource))
	slices.SortStableFunc(d.Sources, func(a, b string) int { return sourceRank(a) - sourceRank(b) })
	common, union, ncells := commonTasks(bySource)
	d.Common, d.Union, d.NCells = len(common), union, ncells
	shared := map[string][]pool.TaskResult{}
	for src, rs := range bySource {
		for _, r := range rs {
			if common[r.TaskID] {
				shared[src] = append(shared[src], r)
			}
		}
	}
	d.Gap = slices.Contains(d.Sources, SourceOracle) && slices.Contains(d.Sources, SourceRetrieved)
	d.Rows = sweepRows(d.Sources, shared)
	d.Own = sweepRows(d.Sources, bySource)
	for _, row := range d.Own {
		for _, m := range row.Cells {
			if m != nil && (m.N != d.Common || len(m.InfraErrors) > 0) {
				d.Differ = true
			}
		}
	}
	d.Chart = htmltemplate.HTML(groupedChart(d.Rows, d.Sources))
	md, html, err := renderReport("sweep", d)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, pool.ReportMDFile), md, 0o644); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(out, pool.ReportHTML), html, 0o644)
}

// commonTasks returns the ids of the tasks scored in every cell (knowledge
// source × condition) of bySource, how many are scored in any cell, and the
// number of cells. A task is scored in a cell when its result there had a
// prediction and no infrastructure error (not NO_PREDICTION, not
// INFRA_ERROR): a sweep compares its conditions on the same tasks, so a
// failed generation in one cell drops the task from every cell's
// comparison.
func commonTasks(bySource map[string][]pool.TaskResult) (common map[string]bool, union, ncells int) {
	cells := map[[2]string]map[string]bool{}
	seen := map[string]bool{}
	for src, rs := range bySource {
		for _, r := range rs {
			k := [2]string{src, r.Condition}
			if cells[k] == nil {
				cells[k] = map[string]bool{}
			}
			if r.Status == pool.StatusNoPrediction || r.Status == pool.StatusInfraError {
				continue
			}
			cells[k][r.TaskID] = true
			seen[r.TaskID] = true
		}
	}
	common = map[string]bool{}
	for id := range seen {
		in := true
		for _, ids := range cells {
			if !ids[id] {
				in = false
				break
			}
		}
		if in {
			common[id] = true
		}
	}
	return common, len(seen), len(cells)
}

// sweepRows builds the condition × source table of results, with the
// retrieved − oracle gap when both sources are present.
func sweepRows(sources []string, bySource map[string][]pool.TaskResult) []sweepRow {
	perSource := make([]map[string]Metrics, len(sources))
	condSet := map[string]bool{}
	for i, src := range sources {
		perSource[i] = ComputeBreakdowns(bySource[src]).Condition
		for c := range perSource[i] {
			condSet[c] = true
		}
	}
	oi, ri := slices.Index(sources, SourceOracle), slices.Index(sources, SourceRetrieved)
	var out []sweepRow
	for _, c := range sortConditions(slices.Collect(maps.Keys(condSet))) {
		row := sweepRow{Condition: c}
		for i := range sources {
			if m, ok := perSource[i][c]; ok {
				row.Cells = append(row.Cells, &m)
			} else {
				row.Cells = append(row.Cells, nil)
			}
		}
		if oi >= 0 && ri >= 0 {
			row.Gap = "–"
			if row.Cells[oi] != nil && row.Cells[ri] != nil && row.Cells[oi].N > 0 && row.Cells[ri].N > 0 {
				row.Gap = fmt.Sprintf("%+.1f", 100*(row.Cells[ri].PassAt1-row.Cells[oi].PassAt1))
			}
		}
		out = append(out, row)
	}
	return out
}

// runCells returns dir itself when it holds results.jsonl, else its
// subdirectories that do, sorted.
func runCells(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, pool.ResultsFile)); err == nil {
		return []string{dir}, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var cells []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(p, pool.ResultsFile)); err == nil {
			cells = append(cells, p)
		}
	}
	return cells, nil
}

// inferSource guesses a cell's knowledge source from its path.
func inferSource(cell, run string) string {
	p := strings.ToLower(filepath.ToSlash(cell))
	switch {
	case strings.Contains(p, "rq2") || strings.Contains(p, "retriev"):
		return SourceRetrieved
	case strings.Contains(p, "rq1") || strings.Contains(p, "oracle"):
		return SourceOracle
	}
	return filepath.Base(filepath.Clean(run))
}

func sourceRank(s string) int {
	switch s {
	case SourceOracle:
		return 0
	case SourceRetrieved:
		return 1
	}
	return 2
}

// sourceColors colours the sources of a sweep chart in order.
var sourceColors = []string{"#1565c0", "#ef6c00", "#2e7d32", "#6a1b9a", "#00838f", "#c62828"}

// groupedChart draws, per condition, one pass@1 bar per source.
func groupedChart(rs []sweepRow, sources []string) string {
	var b strings.Builder
	barH := 12
	groupH := barH*len(sources) + 8
	legendY := chartPad + len(rs)*groupH + 8
	h := legendY + 18*((len(sources)+2)/3) + chartPad
	w := chartLabelW + chartBarW + 70
	fmt.Fprintf(&b, `<svg role="img" aria-label="pass@1 per condition and source" width="%d" height="%d" viewBox="0 0 %d %d">`, w, h, w, h)
	b.WriteString(`<title>pass@1 per condition and knowledge source</title>`)
	for i, r := range rs {
		y := chartPad + i*groupH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="lbl">%s</text>`, chartLabelW-6, y+groupH/2+4, svgEscape(r.Condition))
		for j, m := range r.Cells {
			if m == nil {
				continue
			}
			by := y + j*barH
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"><title>%s %s: %s of %d</title></rect>`,
				chartLabelW, by, int(m.PassAt1*chartBarW+0.5), barH-2, sourceColors[j%len(sourceColors)],
				svgEscape(r.Condition), svgEscape(sources[j]), pct(m.PassAt1), m.N)
			fmt.Fprintf(&b, `<text x="%d" y="%d" class="val">%s</text>`, chartLabelW+int(m.PassAt1*chartBarW+0.5)+4, by+barH-3, pct(m.PassAt1))
		}
	}
	for i, s := range sources {
		x := chartLabelW + (i%3)*170
		y := legendY + (i/3)*18
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="tick">%s</text>`,
			x, y, sourceColors[i%len(sourceColors)], x+16, y+10, svgEscape(s))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
