package construct

import (
	"bufio"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

// InstanceSeed seeds the per-domain shuffle of instance files. The protocol
// uses Python's random.Random(42); novelapi uses Go's math/rand/v2 PCG
// seeded with (42, 42), so the order differs from the published one while
// the set is the same (§7 Stage 4: "sets are compared").
const InstanceSeed = 42

// Exclusion reasons written to excluded_tasks.tsv (§1.7).
const (
	ExcludeC3Recheck = "c3_unsolved_under_call_record_check"
)

// An Exclusion removes a task from every instance (excluded_tasks.tsv).
type Exclusion struct {
	TaskID string
	Reason string
}

// InstanceSummary reports WriteInstance.
type InstanceSummary struct {
	Model    string         `json:"model"`
	C1       int            `json:"c1"`
	Novel    int            `json:"novel"`    // C1 ∩ C2
	Solvable int            `json:"solvable"` // C1 ∩ C2 ∩ C3
	Excluded int            `json:"excluded"` // removed by exclusions from that
	Tasks    int            `json:"tasks"`    // lines of the instance file
	APIs     int            `json:"apis"`
	ByDomain map[string]int `json:"by_domain"`
	Path     string         `json:"path"`
}

// WriteInstance writes dir/instances/<model>.txt = C1 ∩ C2(model) ∩
// C3(model) − exclusions (docs/protocol.md §7 Stage 4), reading
// filters/c1.jsonl, filters/c2/<model>.jsonl and filters/c3/<model>.jsonl
// under dir; a missing filter file is an error naming it. Task ids come
// one per line, ordered by domain, then by library, then in tasks' order,
// and each domain's list is shuffled with a fresh generator seeded with
// [InstanceSeed]. Exclusions (manual ones, and the tasks whose C3 recheck
// passed no sample when C3 recorded one) are appended to
// dir/excluded_tasks.tsv, one "task_id<TAB>reason" line each, replacing
// that file.
func WriteInstance(dir, model string, tasks []*pool.Task, manual []Exclusion) (InstanceSummary, error) {
	sum := InstanceSummary{Model: ModelSlug(model), ByDomain: map[string]int{},
		Path: filepath.Join(dir, "instances", ModelSlug(model)+".txt")}
	c1, err := readSet[C1Record](filepath.Join(dir, "filters", "c1.jsonl"), func(r C1Record) (string, bool) { return r.TaskID, r.Passed })
	if err != nil {
		return sum, err
	}
	c2, err := readSet[C2Record](C2Path(dir, model), func(r C2Record) (string, bool) { return r.TaskID, r.Novel })
	if err != nil {
		return sum, err
	}
	var recheckFail []string
	c3, err := readSet[C3Record](C3Path(dir, model), func(r C3Record) (string, bool) {
		if r.Passed && r.RecheckPassed != nil && *r.RecheckPassed == 0 {
			recheckFail = append(recheckFail, r.TaskID)
		}
		return r.TaskID, r.Passed
	})
	if err != nil {
		return sum, err
	}
	excl := map[string]string{}
	for _, e := range manual {
		excl[e.TaskID] = e.Reason
	}
	for _, id := range recheckFail {
		if _, ok := excl[id]; !ok {
			excl[id] = ExcludeC3Recheck
		}
	}
	byDomain := map[string][]*pool.Task{}
	apis := map[string]bool{}
	order := map[string]int{}
	for i, t := range tasks {
		order[t.TaskID] = i
		if !c1[t.TaskID] {
			continue
		}
		sum.C1++
		if !c2[t.TaskID] {
			continue
		}
		sum.Novel++
		if !c3[t.TaskID] {
			continue
		}
		sum.Solvable++
		if _, ok := excl[t.TaskID]; ok {
			sum.Excluded++
			continue
		}
		d := t.Domain
		if d == "" {
			d = bundles.DomainOf(t.Library)
		}
		byDomain[d] = append(byDomain[d], t)
		apis[t.APIName] = true
	}
	var lines []string
	for _, d := range slices.Sorted(maps.Keys(byDomain)) {
		ts := byDomain[d]
		slices.SortStableFunc(ts, func(a, b *pool.Task) int {
			if c := strings.Compare(a.Library, b.Library); c != 0 {
				return c
			}
			return order[a.TaskID] - order[b.TaskID]
		})
		r := rand.New(rand.NewPCG(InstanceSeed, InstanceSeed))
		r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
		for _, t := range ts {
			lines = append(lines, t.TaskID)
		}
		sum.ByDomain[d] = len(ts)
	}
	sum.Tasks, sum.APIs = len(lines), len(apis)
	if err := os.MkdirAll(filepath.Dir(sum.Path), 0o755); err != nil {
		return sum, err
	}
	data := strings.Join(lines, "\n")
	if data != "" {
		data += "\n"
	}
	if err := atomicfile.Write(sum.Path, []byte(data), 0o644); err != nil {
		return sum, err
	}
	var tsv strings.Builder
	for _, id := range slices.Sorted(maps.Keys(excl)) {
		fmt.Fprintf(&tsv, "%s\t%s\n", id, excl[id])
	}
	return sum, atomicfile.Write(filepath.Join(dir, "excluded_tasks.tsv"), []byte(tsv.String()), 0o644)
}

// ReadExclusions reads an excluded_tasks.tsv file ("task_id<TAB>reason"
// lines, §1.7); blank lines and lines starting with "#" are skipped. A
// line without a tab is an error naming the file and line.
func ReadExclusions(path string) ([]Exclusion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Exclusion
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want task_id<TAB>reason, got %q", path, n, line)
		}
		out = append(out, Exclusion{TaskID: strings.TrimSpace(id), Reason: strings.TrimSpace(reason)})
	}
	return out, sc.Err()
}

// readSet reads a filter file into task id → kept; a later record of a
// task overrides an earlier one.
func readSet[R any](path string, id func(R) (string, bool)) (map[string]bool, error) {
	recs, _, err := jsonl.Read[R](path, jsonl.ReadOptions{SkipBad: true})
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	out := make(map[string]bool, len(recs))
	for _, r := range recs {
		k, v := id(r)
		out[k] = v
	}
	return out, nil
}
