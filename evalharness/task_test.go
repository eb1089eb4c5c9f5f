package evalharness_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
)

func TestTask_Validate_ImportedPools(t *testing.T) {
	base := func() *evalharness.Task {
		return &evalharness.Task{
			TaskID: "t", APIName: "math.sin", Description: "Compute values using the updated function.",
			TestHarness: evalharness.TestHarness{
				SetupCode:     evalharness.StockMonitor("math.sin"),
				ExecutionTest: evalharness.CheckBlock("math.sin") + "assert True\n",
			},
		}
	}
	tests := []struct {
		name    string
		edit    func(*evalharness.Task)
		wantErr string // "" means valid
	}{
		// Protocol §1.3: "sin" inside "using" is rejected for native tasks.
		{"NativeLeafRule", func(*evalharness.Task) {}, "description contains the API leaf name"},
		{"ImportedByOrigin", func(t *evalharness.Task) { t.Origin = "codeupdatearena" }, ""},
		{"ImportedByGenerator", func(t *evalharness.Task) { t.Generator = "import:codeupdatearena" }, ""},
		{"EntryScope", func(t *evalharness.Task) {
			t.Origin, t.SpyScope, t.EntryPoint = "x", evalharness.SpyScopeEntryPoint, "solve"
		}, ""},
		{"EntryScopeWithoutEntry", func(t *evalharness.Task) {
			t.Origin, t.SpyScope = "x", evalharness.SpyScopeEntryPoint
		}, "needs an entry_point"},
		{"UnknownScope", func(t *evalharness.Task) { t.Origin, t.SpyScope = "x", "test" }, `spy_scope "test"`},
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
