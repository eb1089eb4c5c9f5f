package pool_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

func TestTask_Validate_ImportedPools(t *testing.T) {
	base := func() *pool.Task {
		return &pool.Task{
			TaskID: "t", APIName: "math.sin", Description: "Compute values using the updated function.",
			TestHarness: pool.TestHarness{
				SetupCode:     pool.StockMonitor("math.sin"),
				ExecutionTest: pool.CheckBlock("math.sin") + "assert True\n",
			},
		}
	}
	tests := []struct {
		name    string
		edit    func(*pool.Task)
		wantErr string // "" means valid
	}{
		// docs/protocol.md §1.3: "sin" inside "using" is rejected for native tasks.
		{"NativeLeafRule", func(*pool.Task) {}, "description contains the API leaf name"},
		{"ImportedByOrigin", func(t *pool.Task) { t.Origin = "codeupdatearena" }, ""},
		{"ImportedByGenerator", func(t *pool.Task) { t.Generator = "import:codeupdatearena" }, ""},
		{"EntryScope", func(t *pool.Task) {
			t.Origin, t.SpyScope, t.EntryPoint = "x", pool.SpyScopeEntryPoint, "solve"
		}, ""},
		{"EntryScopeWithoutEntry", func(t *pool.Task) {
			t.Origin, t.SpyScope = "x", pool.SpyScopeEntryPoint
		}, "needs an entry_point"},
		{"UnknownScope", func(t *pool.Task) { t.Origin, t.SpyScope = "x", "test" }, `spy_scope "test"`},
		{"InjectedTarget", func(t *pool.Task) { t.Origin, t.SpyAPIs = "x", []string{"math;print(42).cos"} }, "not a dotted Python name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := base()
			tt.edit(task)
			err := task.Validate(false)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate = %v; want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate = %v; want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestLoadTasks_BundlesFile: a bundles file handed over as tasks is
// refused at its first line as a bundles file.
func TestLoadTasks_BundlesFile(t *testing.T) {
	path := "../bundles/testdata/formats/published.jsonl"
	_, err := pool.LoadTasks(path, pool.LoadOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), path+":1: not a task") || !strings.Contains(err.Error(), "as a line of bundles.jsonl has") {
		t.Errorf("LoadTasks(%s) = %v; want line 1 named a line of bundles.jsonl", path, err)
	}
}
