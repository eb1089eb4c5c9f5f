package evalharness

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// TestPythonTemplates runs testdata/pytests/templates_test.py inside the
// sandbox after the recording monitor, through the runner.
func TestPythonTemplates(t *testing.T) {
	h := newTestHarness(t)
	src, err := os.ReadFile("testdata/pytests/templates_test.py")
	if err != nil {
		t.Fatal(err)
	}
	ok := CallCheck([]json.RawMessage{json.RawMessage(`{"kind":"call","ret":{"t":"sequence","len":2}}`)})
	bad := CallCheck([]json.RawMessage{json.RawMessage(`{"kind":"call","ret":{"t":"sequence","len":3}}`)})
	task := &pool.Task{TaskID: "templates", APIName: "numpy.unstack", Library: "numpy"}
	job := runnerJob{
		Setup: buildSetup(task, setupOptions{leafBinding: true}),
		Code:  "CALL_CHECK_OK = " + pyStr(ok) + "\nCALL_CHECK_BAD = " + pyStr(bad) + "\n" + string(src),
	}
	env := sandboxtestEnv(t)
	out, err := h.execJob(context.Background(), env, job, 60e9)
	if err != nil {
		t.Fatal(err)
	}
	if out.Recs.Tamper != "" || out.Recs.Exception != nil || out.Res.ExitCode != 0 {
		t.Fatalf("templates test failed: tamper=%q exit=%d\n%s", out.Recs.Tamper, out.Res.ExitCode, out.Res.Stderr)
	}
	if !strings.Contains(string(out.Res.Stdout), "templates ok") {
		t.Errorf("stdout = %q", out.Res.Stdout)
	}
}

func TestStockMonitor(t *testing.T) {
	m := pool.StockMonitor("scipy.stats.lmoment")
	if !strings.Contains(m, `_target_api_name = "scipy.stats.lmoment"`) || strings.Contains(m, "__NOVELAPI") {
		t.Errorf("StockMonitor does not embed the name:\n%s", m)
	}
	task := &pool.Task{TaskID: "x", APIName: "scipy.stats.lmoment", TestHarness: pool.TestHarness{SetupCode: "pass", ExecutionTest: pool.CheckBlock("scipy.stats.lmoment") + "pass"}}
	if err := task.Validate(false); err == nil || !strings.Contains(err.Error(), "stock target-call monitor") {
		t.Errorf("Validate with a foreign setup_code = %v; want the stock-monitor error", err)
	}
	task.TestHarness.SetupCode = m
	if err := task.Validate(false); err != nil {
		t.Errorf("Validate = %v", err)
	}
}

func TestIsStockMonitor(t *testing.T) {
	published := "# --- target-API call spy (auto-injected) ---\nimport importlib as _spy_il\n_target_api_name = 'numpy.unstack'\n_target_api_call_count = [0]\n_target_api_spy_installed = False\ntry:\n    pass\nexcept Exception:\n    pass\n"
	tests := []struct {
		name, setup, api string
		want             bool
	}{
		{"Ours", pool.StockMonitor("numpy.unstack"), "numpy.unstack", true},
		{"PublishedLayout", published, "numpy.unstack", true},
		{"OtherAPI", published, "numpy.stack", false},
		{"Tampered", strings.Replace(published, "_target_api_spy_installed = False", "_target_api_spy_installed = True", 1), "numpy.unstack", false},
		{"Empty", "", "numpy.unstack", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pool.IsStockMonitor(tt.setup, tt.api); got != tt.want {
				t.Errorf("IsStockMonitor = %v; want %v", got, tt.want)
			}
		})
	}
}
