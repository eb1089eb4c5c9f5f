package construct_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

func TestWriteInstance_SetAndOrder(t *testing.T) {
	dir := t.TempDir()
	var tasks []*pool.Task
	var c1 []construct.C1Record
	var c2 []construct.C2Record
	var c3 []construct.C3Record
	zero, one := 0, 1
	for i := range 12 {
		lib, dom := "numpy", "data_science"
		if i%3 == 0 {
			lib, dom = "torch", "dl"
		}
		id := fmt.Sprintf("t%02d", i)
		tasks = append(tasks, &pool.Task{TaskID: id, APIName: lib + ".f" + id, Library: lib, Domain: dom})
		c1 = append(c1, construct.C1Record{TaskID: id, Passed: i != 1})
		c2 = append(c2, construct.C2Record{TaskID: id, Novel: i != 2, SampleFails: []bool{true, true, true}})
		rc := &one
		if i == 4 {
			rc = &zero // solvable, but not under the call-record check
		}
		c3 = append(c3, construct.C3Record{TaskID: id, Passed: i != 3, RecheckPassed: rc})
	}
	for path, recs := range map[string]any{
		filepath.Join(dir, "filters", "c1.jsonl"): c1, construct.C2Path(dir, "m"): c2, construct.C3Path(dir, "m"): c3,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch r := recs.(type) {
		case []construct.C1Record:
			err = jsonl.Write(path, r)
		case []construct.C2Record:
			err = jsonl.Write(path, r)
		case []construct.C3Record:
			err = jsonl.Write(path, r)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	sum, err := construct.WriteInstance(dir, "m", tasks, []construct.Exclusion{{TaskID: "t05", Reason: "evaluation_unsafe"}})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pool.LoadInstance(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t00", "t06", "t07", "t08", "t09", "t10", "t11"} // minus t01 (C1), t02 (C2), t03 (C3), t04 (recheck), t05 (manual)
	if got := slices.Sorted(slices.Values(ids)); !slices.Equal(got, want) {
		t.Errorf("instance = %v, want the set %v", ids, want)
	}
	// data_science comes before dl; the order is the same on every run.
	domainOf := func(id string) string {
		for _, tk := range tasks {
			if tk.TaskID == id {
				return tk.Domain
			}
		}
		return ""
	}
	if !slices.IsSortedFunc(ids, func(a, b string) int { return strings.Compare(domainOf(a), domainOf(b)) }) {
		t.Errorf("instance %v is not grouped by domain", ids)
	}
	again, err := construct.WriteInstance(dir, "m", tasks, []construct.Exclusion{{TaskID: "t05", Reason: "evaluation_unsafe"}})
	if err != nil {
		t.Fatal(err)
	}
	ids2, _ := pool.LoadInstance(again.Path)
	if !slices.Equal(ids, ids2) {
		t.Errorf("order differs between runs: %v vs %v", ids, ids2)
	}
	tsv, _ := os.ReadFile(filepath.Join(dir, "excluded_tasks.tsv"))
	if string(tsv) != "t04\tc3_unsolved_under_call_record_check\nt05\tevaluation_unsafe\n" {
		t.Errorf("excluded_tasks.tsv = %q", tsv)
	}
	if sum.C1 != 11 || sum.Novel != 10 || sum.Solvable != 9 || sum.Excluded != 2 || sum.ByDomain["dl"] != 3 {
		t.Errorf("summary %+v", sum)
	}
}

func TestReadExclusions_BadLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ex.tsv")
	os.WriteFile(p, []byte("# comment\nt1\tmanual\nno-tab-here\n"), 0o644)
	if _, err := construct.ReadExclusions(p); err == nil || !strings.Contains(err.Error(), ":3:") {
		t.Errorf("ReadExclusions: %v, want an error naming line 3", err)
	}
}
