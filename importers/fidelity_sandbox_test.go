package importers_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

var (
	fidelityPools = flag.String("fidelity-pools", "", "TestReferenceFidelity: comma-separated pools of ../shared/data (codeupdatearena, pandaseval, numpyeval, monkeyeval, beatnumeval); empty: all, -fidelity-n tasks each")
	fidelityN     = flag.Int("fidelity-n", 4, "TestReferenceFidelity: at most this many tasks per pool, spread over it (0: every task)")
	fidelityEnv   = flag.String("fidelity-env", "bookworm-sci", "TestReferenceFidelity: environment of the APICoder pools (CodeUpdateArena runs in trixie-arena)")
	fidelityTasks = flag.String("fidelity-tasks", "", "TestReferenceFidelity: comma-separated task ids to run (empty: all, or -fidelity-n of them)")
)

// taskIDs splits a comma-separated flag of task ids; nil when empty.
func taskIDs(s string) []string {
	var out []string
	for id := range strings.SplitSeq(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// sharedData finds ../shared/data/<rel> beside the repository (or a
// worktree's repository); "" when absent.
func sharedData(rel string) string {
	dir, _ := filepath.Abs("..")
	for range 4 {
		p := filepath.Join(dir, "..", "shared", "data", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// importShared imports one pool of ../shared/data into a temporary
// directory: CodeUpdateArena for trixie-arena, APICoder's pools for env.
//
// n > 0 keeps n tasks spread over the pool, ids only the tasks named
// (both before the spy is resolved).
func importShared(t *testing.T, name, env string, n int, ids []string) ([]*importers.Task, map[string]*pool.ExpectedCalls) {
	t.Helper()
	need := func(rel string) string {
		p := sharedData(rel)
		if p == "" {
			if sandboxtest.Required() {
				t.Fatalf("../shared/data/%s not found beside the repository", rel)
			}
			t.Skipf("SKIPPING: ../shared/data/%s not found beside the repository", rel)
		}
		return p
	}
	out := t.TempDir()
	var err error
	switch name {
	case "codeupdatearena":
		_, err = importers.ImportCodeUpdateArena(need("codeupdatearena/arena.jsonl"), out, importers.ArenaConfig{})
	case "pandaseval", "numpyeval":
		lib := strings.TrimSuffix(name, "eval")
		_, err = importers.ImportHumanEval(need("apicoder/real_"+lib+"_eval_v3.jsonl.gz"), out,
			importers.HumanEvalConfig{Environment: env, Library: name})
	case "monkeyeval", "beatnumeval":
		orig, kw := "pandas", "pandas_keywords.jsonl"
		if name == "beatnumeval" {
			orig, kw = "numpy", "numpy_keywords.jsonl"
		}
		_, err = importers.ImportHumanEval(need("apicoder/real_"+strings.TrimSuffix(name, "eval")+"_eval_v3.jsonl.gz"), out,
			importers.HumanEvalConfig{Environment: env, Library: name,
				Original: need("apicoder/real_" + orig + "_eval_v3.jsonl.gz"), Keywords: need("apicoder/" + kw)})
	default:
		t.Fatalf("no shared pool %q", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 || len(ids) > 0 {
		tasks, err := importers.LoadPool(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > 0 {
			tasks = slices.DeleteFunc(tasks, func(tk *importers.Task) bool { return !slices.Contains(ids, tk.TaskID) })
		}
		if err := jsonl.Write(filepath.Join(out, importers.TasksFile), spread(tasks, n)); err != nil {
			t.Fatal(err)
		}
	}
	if name != "codeupdatearena" {
		spyShared(t, out, name, need)
	}
	tasks, err := importers.LoadPool(out)
	if err != nil {
		t.Fatal(err)
	}
	expected, err := pool.LoadExpectedCalls(filepath.Join(out, importers.ExpectedFile))
	if err != nil {
		t.Fatal(err)
	}
	return tasks, expected
}

// spyShared gives an imported APICoder pool in dir its spy
// (importers.SpyPool) from the pool's keyword mapping: pandas (then numpy)
// APIs for PandasEval and MonkeyEval, numpy APIs for NumpyEval and
// BeatNumEval.
func spyShared(t *testing.T, dir, name string, need func(string) string) {
	t.Helper()
	lib := "pandas"
	if name == "numpyeval" || name == "beatnumeval" {
		lib = "numpy"
	}
	m, err := importers.ReadKeywordMapping(need("apicoder/" + lib + "_keyword_mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := importers.ReadKeywordTable(need("apicoder/" + lib + "_keywords.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := importers.SpyPoolConfig{Mapping: m, Keywords: table, ResolveConfig: importers.ResolveConfig{
		Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home()), Workers: 2,
		Spaces: []importers.TargetSpace{importers.TargetSpaces[lib]}}}
	if lib == "pandas" {
		cfg.Spaces = append(cfg.Spaces, importers.TargetSpaces["numpy"])
	}
	res, err := importers.SpyPool(t.Context(), dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range res {
		if len(r.Called) > 0 {
			n++
		}
	}
	t.Logf("%s: %d of %d tasks the mapping names spy on their APIs", name, n, len(res))
}

// spread keeps at most n of tasks, every len/n-th (n <= 0: all).
func spread[T any](tasks []T, n int) []T {
	if n <= 0 || len(tasks) <= n {
		return tasks
	}
	step := float64(len(tasks)) / float64(n)
	var keep []T
	for i := range n {
		keep = append(keep, tasks[int(float64(i)*step)])
	}
	return keep
}

// TestReferenceFidelity measures, on the real pools of ../shared/data,
// whether novelapi's harness judges each reference as the pool's own
// harness does: the reference under the pool's own assembly run as plain
// Python (importers.CheckReferences, Original), through the harness with
// the spy on (Harness.Evaluate of the reference prediction, on the task as
// imported: a renamed pool's solution in its renamed names, translated
// back by the harness) and with it off
// (evalharness.SpyOff), all in the same environment. Every verdict must
// agree. CI runs a few tasks of each pool; bench/fidelity.sh runs every
// task and prints the table (docs/importers.md, "Fidelity").
func TestReferenceFidelity(t *testing.T) {
	bwrapOnly(t)
	pools := []string{"codeupdatearena", "pandaseval", "monkeyeval", "numpyeval", "beatnumeval"}
	if *fidelityPools != "" {
		pools = strings.Split(*fidelityPools, ",")
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| pool | environment | tasks | original | harness, spy on | harness, spy off | differ |\n|---|---|---:|---:|---:|---:|---:|\n")
	var diffs []string
	for _, name := range pools {
		t.Run(name, func(t *testing.T) {
			env := *fidelityEnv
			if name == "codeupdatearena" {
				env = importers.ArenaEnvironment
			}
			sandboxtest.Env(t, env)
			tasks, expected := importShared(t, name, env, *fidelityN, taskIDs(*fidelityTasks))
			store := debenv.OpenStore(sandboxtest.Home())
			checks, err := importers.CheckReferences(t.Context(), tasks, importers.CheckConfig{
				Runner: sandboxtest.Runner(t), Store: store, Workers: 2,
			})
			if err != nil {
				t.Fatal(err)
			}
			h, err := evalharness.New(evalharness.Config{Runner: sandboxtest.Runner(t), Store: store})
			if err != nil {
				t.Fatal(err)
			}
			type verdicts struct{ on, off evalharness.Verdict }
			got := make([]verdicts, len(tasks))
			var wg sync.WaitGroup
			next := make(chan int)
			for range 2 {
				wg.Go(func() {
					for i := range next {
						tk := tasks[i]
						exp := expected[tk.TaskID]
						ref := reference(tk)
						got[i].on, _ = h.Evaluate(t.Context(), tk.Task, exp, ref)
						got[i].off = got[i].on
						if tk.SpyNeeded() {
							got[i].off, _ = h.Evaluate(t.Context(), evalharness.SpyOff(tk.Task), exp, ref)
						}
					}
				})
			}
			for i := range tasks {
				next <- i
			}
			close(next)
			wg.Wait()
			var orig, on, off, differ int
			for i, c := range checks {
				v := got[i]
				orig += b2i(c.Original.Passed)
				on += b2i(v.on.Passed)
				off += b2i(v.off.Passed)
				if c.InfraError != "" || v.on.Passed != c.Original.Passed || v.off.Passed != c.Original.Passed {
					differ++
					d := fmt.Sprintf("%s %s: original %v (%s); spy on %v %s %s; spy off %v %s %s; infra %q", name, c.TaskID,
						c.Original.Passed, c.Original.Reason, v.on.Passed, v.on.Status, firstLineOf(v.on.Error),
						v.off.Passed, v.off.Status, firstLineOf(v.off.Error), c.InfraError)
					diffs = append(diffs, d)
					t.Errorf("verdicts differ: %s", d)
				}
			}
			row := fmt.Sprintf("| %s | %s | %d | %d | %d | %d | %d |\n", name, env, len(tasks), orig, on, off, differ)
			t.Log(row)
			table.WriteString(row)
		})
	}
	t.Log("\n" + table.String() + strings.Join(diffs, "\n"))
}

// reference returns the response eval run gets from the task's reference
// prediction (importers.ReferencePredictions): for a HumanEval-style pool,
// its own solution as written, the text that continues the prompt (for a
// renamed pool in the renamed names, which the harness translates back).
func reference(tk *importers.Task) string {
	return importers.ReferencePredictions([]*pool.Task{tk.Task})[0].Samples[0]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstLineOf returns the last non-empty line of an error text (the
// exception line of a traceback).
func firstLineOf(s string) string {
	lines := slices.DeleteFunc(strings.Split(strings.TrimSpace(s), "\n"), func(l string) bool { return strings.TrimSpace(l) == "" })
	if len(lines) == 0 {
		return ""
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

// The references of MonkeyEval's tasks on pandas.DataFrame pass with the
// spy on in bookworm-sci (pandas 1.5). The class spy counted and recorded
// the DataFrames the monitor itself built while fingerprinting a recorded
// DataFrame (pandas 1.x constructs the result of select_dtypes through the
// class), each recorded again: the runs timed out (they passed with the spy
// off, and on trixie-sci, whose pandas 2 builds those frames without
// calling the class).
func TestReferenceFidelity_MonkeyEvalDataFrameSpy(t *testing.T) {
	bwrapOnly(t)
	const env = "bookworm-sci"
	sandboxtest.Env(t, env)
	tasks, expected := importShared(t, "monkeyeval", env, 0, []string{"he_PandasEval_21", "he_PandasEval_60", "he_PandasEval_67"})
	if len(tasks) != 3 {
		t.Fatalf("%d tasks imported, want 3", len(tasks))
	}
	h, err := evalharness.New(evalharness.Config{Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home())})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		t.Run(tk.TaskID, func(t *testing.T) {
			if tk.APIName != "pandas.DataFrame" {
				t.Fatalf("api_name %s, want pandas.DataFrame", tk.APIName)
			}
			v, err := h.Evaluate(t.Context(), tk.Task, expected[tk.TaskID], reference(tk))
			if err != nil {
				t.Fatal(err)
			}
			if !v.Passed || v.SpyCalls == 0 {
				t.Errorf("passed %v, status %s, spy calls %d, label %s (%s): %s", v.Passed, v.Status, v.SpyCalls, v.Label, v.Rationale, v.Error)
			}
		})
	}
}
