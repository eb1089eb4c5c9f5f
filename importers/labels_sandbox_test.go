package importers_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestEvaluate_BeatNumEvalRuntimeEvidence runs, on BeatNumEval's tasks
// with the spy from APICoder's keyword mapping (bookworm-sci), the
// failures issue 19 names, each labelled from the run's evidence
// (docs/protocol.md §5.2 "runtime"):
//   - a misspelt top-level package (import nmupy) is WrongImport;
//   - a NameError of the completion's own code on numpy.min's task is no
//     WrongImport, although the protocol's fallback text ("no
//     deterministic rule matched") holds the leaf "min";
//   - 400 warnings fill the kept stderr: status and label still say the
//     target was not called;
//   - a spy that cannot install (numpy.unstack, numpy 2.1+, in numpy 1.24)
//     and a test that does not compile are the task's defects
//     (INFRA_ERROR, no label), whoever wrote the completion.
func TestEvaluate_BeatNumEvalRuntimeEvidence(t *testing.T) {
	bwrapOnly(t)
	const env = "bookworm-sci"
	sandboxtest.Env(t, env)
	ids := []string{"he_NumpyEval_77", "he_NumpyEval_79", "he_NumpyEval_81", "he_NumpyEval_88", "he_NumpyEval_93"}
	tasks, expected := importShared(t, "beatnumeval", env, 0, ids)
	byID := map[string]*pool.Task{}
	for _, tk := range tasks {
		byID[tk.TaskID] = tk.Task
	}
	h, err := evalharness.New(evalharness.Config{Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home())})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, task, code string
		edit             func(*pool.Task)
		status, label    string // label under the runtime taxonomy
		defect           string // substring of the infra error
	}{
		{name: "MisspeltPackage", task: "he_NumpyEval_88",
			code:   "import nmupy as np\n\ndef inverse_matrix(matrix):\n    return np.linalg.inv(matrix)\n",
			status: pool.StatusCompileError, label: pool.LabelWrongImport},
		{name: "FallbackTextHoldsLeaf", task: "he_NumpyEval_93",
			code:   "def get_minimum_value(arr):\n    return compute(arr)\n",
			status: pool.StatusRuntimeError, label: pool.LabelWrongLogic},
		{name: "WarningsFillStderr", task: "he_NumpyEval_77",
			code: "import warnings\n\ndef get_index_max_element(arr, axis_value):\n    for i in range(400):\n" +
				"        warnings.warn('this old spelling is deprecated, number %d' % i)\n" +
				"    return np.array([list(c).index(max(c)) for c in (arr.T if axis_value == 0 else arr)])\n",
			status: pool.StatusAPINotCalled, label: pool.LabelWrongAPISelection},
		{name: "SpyCannotInstall", task: "he_NumpyEval_79",
			code:   "def test_arr_contain_only_zeros(arr):\n    return not np.any(arr)\n",
			edit:   func(tk *pool.Task) { tk.SpyAPIs = append(tk.SpyAPIs, "numpy.unstack") },
			status: pool.StatusInfraError, defect: "numpy.unstack"},
		{name: "TestDoesNotCompile", task: "he_NumpyEval_81",
			code: "def convert_nan_to_zero(arr):\n    arr[np.isnan(arr)] = 0\n    return arr\n",
			edit: func(tk *pool.Task) {
				tk.TestHarness.ExecutionTest = strings.Replace(tk.TestHarness.ExecutionTest, "check(convert_nan_to_zero)", "check(convert_nan_to_zero\nassert (", 1)
			},
			status: pool.StatusInfraError, defect: "test does not compile"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			orig := byID[tt.task]
			if orig == nil || !orig.SpyNeeded() {
				t.Fatalf("%s is not among the imported tasks with a spy", tt.task)
			}
			tk := *orig
			tk.SpyAPIs = append([]string(nil), orig.SpyAPIs...)
			if tt.edit != nil {
				tt.edit(&tk)
			}
			// The completions are in numpy's names, run as written.
			v, labels, err := h.EvaluateLabels(t.Context(), evalharness.Untranslated(&tk), expected[tk.TaskID], "```python\n"+tt.code+"```")
			if err != nil {
				t.Fatal(err)
			}
			if v.Status != tt.status || v.Label != tt.label || labels[evalharness.TaxonomyRuntime] != tt.label {
				t.Errorf("status %s, label %s (%s: %s); want %s, %q", v.Status, v.Label, v.Rule, v.Rationale, tt.status, tt.label)
			}
			if tt.defect != "" && (!v.TaskDefect || !strings.Contains(v.InfraError, tt.defect)) {
				t.Errorf("task defect %v, infra error %q; want a task defect naming %q", v.TaskDefect, v.InfraError, tt.defect)
			}
			if tt.defect == "" && labels[evalharness.TaxonomyProtocol] == "" {
				t.Errorf("no protocol label")
			}
			t.Logf("runtime %s (%s), protocol %s", v.Label, v.Rule, labels[evalharness.TaxonomyProtocol])
		})
	}
}
