package importers_test

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// SpyPool on APICoder's sample in bookworm-sci: each problem the mapping
// names gets a spy on the APIs its reference calls under those names
// (pandas first: PandasEval/20's groupby sum calls numpy's ndarray.sum
// itself, which is not the target); a reference that does not compile
// keeps the spy off. The spied references pass through the harness, with
// the spy on, exactly when the pool's own program passes.
func TestSpyPool_APICoder(t *testing.T) {
	bwrapOnly(t)
	sandboxtest.Env(t, "bookworm-sci")
	tests := []struct {
		pool, mapping string
		spaces        []string
		want          map[string][]string // task → targets; nil: spy off
	}{
		{"monkey", "pandas_keyword_mapping.json", []string{"pandas", "numpy"}, map[string][]string{
			"he_PandasEval_9":  {"pandas.DataFrame.dropna"},
			"he_PandasEval_20": {"pandas.DataFrame.groupby", "pandas.core.groupby.DataFrameGroupBy.sum"},
			"he_PandasEval_32": nil, // the translated solution is "error!"
			"he_PandasEval_34": {"pandas.DataFrame.reset_index", "pandas.DataFrame.groupby", "pandas.core.groupby.DataFrameGroupBy.apply"},
		}},
		{"beatnum", "numpy_keyword_mapping.json", []string{"numpy"}, map[string][]string{
			"he_NumpyEval_0":  {"numpy.array"},
			"he_NumpyEval_28": {"numpy.setxor1d"},
			"he_NumpyEval_97": nil, // the solution names np: "error!"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.pool, func(t *testing.T) {
			dir, _ := importAPICoder(t, tt.pool, "bookworm-sci")
			m, err := importers.ReadKeywordMapping("testdata/apicoder/" + tt.mapping)
			if err != nil {
				t.Fatal(err)
			}
			cfg := importers.SpyPoolConfig{Mapping: m, ResolveConfig: importers.ResolveConfig{
				Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home()), Workers: 2}}
			for _, s := range tt.spaces {
				cfg.Spaces = append(cfg.Spaces, importers.TargetSpaces[s])
			}
			res, err := importers.SpyPool(t.Context(), dir, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, r := range res {
				got[r.TaskID] = r.Called
				if len(r.Called) == 0 && r.Reason == "" {
					t.Errorf("%s: spy off without a reason", r.TaskID)
				}
			}
			for id, want := range tt.want {
				if !slices.Equal(got[id], want) {
					t.Errorf("%s: targets %v; want %v", id, got[id], want)
				}
			}
			tasks, err := importers.LoadPool(dir)
			if err != nil {
				t.Fatal(err)
			}
			var spied []*importers.Task
			for _, tk := range tasks {
				if want := tt.want[tk.TaskID]; want != nil {
					if !tk.SpyNeeded() || tk.APIName != want[0] || !slices.Equal(tk.Targets(), want) {
						t.Errorf("%s: spy %v targets %v; want %v", tk.TaskID, tk.SpyNeeded(), tk.Targets(), want)
					}
					spied = append(spied, tk)
				} else if tk.SpyNeeded() {
					t.Errorf("%s: spy on; want off", tk.TaskID)
				}
			}
			checks, err := importers.CheckReferences(t.Context(), spied, importers.CheckConfig{
				Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home()), Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			by, _ := evalPool(t, dir, func(tk *pool.Task) bool { return tk.SpyNeeded() })
			for _, c := range checks {
				r := by[c.TaskID]
				if !c.Original.Passed || !c.Monitor.Passed || !r.Passed || !r.TargetCalled {
					t.Errorf("%s: original %+v, monitored %+v, harness passed %v called %v (%s %s)", c.TaskID, c.Original, c.Monitor, r.Passed, r.TargetCalled, r.Status, r.Error)
				}
			}
		})
	}
}
