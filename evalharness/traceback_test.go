package evalharness

import (
	"context"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/pool"
)

func TestUserLines(t *testing.T) {
	// setup lines 1-10, completion 12-14 (one blank line stripped before
	// it), test 16-20.
	layout := []scriptPart{{"setup", 1, 10, 0}, {"solution", 12, 3, 1}, {"test", 16, 5, 0}}
	in := "Traceback (most recent call last):\n" +
		"  File \"/job/runner.py\", line 400, in main\n" +
		"  File \"_solution.py\", line 17, in <module>\n" +
		"  File \"_solution.py\", line 13, in f\n" +
		"  File \"_solution.py\", line 4, in spy\n" +
		"  File \"_solution.py\", line 11, in <module>\n" +
		"SyntaxError: invalid syntax (_solution.py, line 14)\n" +
		"/job/_solution.py:13: FutureWarning: DataFrame.applymap has been deprecated.\n"
	got := userLines(layout, in)
	for _, want := range []string{
		`File "/job/runner.py", line 400, in main`,
		"  line 2 of the task's test, in <module>",
		"  line 3 of your code, in f",
		"  line 4 of the harness setup, in spy",
		"  line 11 of the assembled script, in <module>",
		"invalid syntax (line 4 of your code)",
		"line 3 of your code: FutureWarning: DataFrame.applymap",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("userLines lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "_solution.py") {
		t.Errorf("userLines left a flat-script location:\n%s", got)
	}
	if userLines(nil, in) != in {
		t.Error("userLines without a layout changed the text")
	}
}

// TestCheckCode_UserLines runs failing code in the sandbox and checks that
// check_code names lines of the checked code, not of the assembled script.
func TestCheckCode_UserLines(t *testing.T) {
	h := newTestHarness(t)
	tests := []struct {
		name, code, where string
		line              int
		exc               string
	}{
		// The leading blank line counts: line 4 as sent.
		{"Runtime", "\nimport numpy as np\nx = np.arange(3)\nnp.unstack(x, axis=5)\n", "line 4 of your code", 4, ""},
		{"InFunction", "import numpy as np\ndef f(a):\n    raise ValueError('boom')\nf(np.unstack(np.ones((2, 2))))\n", "line 3 of your code", 3, "ValueError"},
		{"Syntax", "import numpy as np\nx = (np.unstack(\n", "line 2 of your code", 2, "SyntaxError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr, err := h.CheckCode(context.Background(), tt.code, "numpy.unstack", "numpy")
			if err != nil {
				t.Fatal(err)
			}
			if cr.Where != tt.where || cr.Line != tt.line || (tt.exc != "" && cr.ExceptionType != tt.exc) {
				t.Errorf("CheckCode = where %q line %d exception %s: %s; want %q, %d, %s", cr.Where, cr.Line, cr.ExceptionType, cr.Message, tt.where, tt.line, tt.exc)
			}
			if !strings.Contains(cr.Stderr, tt.where) || strings.Contains(cr.Stderr, scriptName) || strings.Contains(cr.Message, scriptName) {
				t.Errorf("stderr or message name the assembled script or lack %q:\nmessage %s\n%s", tt.where, cr.Message, cr.Stderr)
			}
		})
	}
}

// TestEvaluate_UserLines checks the results' error text of a completion
// failing in itself and of one failing the task's test.
func TestEvaluate_UserLines(t *testing.T) {
	h := newTestHarness(t)
	tasks, exp := loadFixture(t)
	var task *pool.Task
	for _, tk := range tasks {
		if tk.TaskID == "np_matrix_norm_medium" {
			task = tk
		}
	}
	for _, tt := range []struct{ name, code, want string }{
		{"Completion", "x = 1\nraise ValueError('boom')", "line 2 of your code"},
		// The call-record check spliced into the test fails there.
		{"Test", "norms = np.linalg.matrix_norm(stack*0, ord='fro', keepdims=True)", "of the task's test, in <module>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Evaluate(context.Background(), task, exp[task.TaskID], tt.code)
			if err != nil {
				t.Fatal(err)
			}
			if v.Passed || !strings.Contains(v.Error, tt.want) || strings.Contains(v.Error, scriptName) {
				t.Errorf("Evaluate error %q (status %s); want one naming %q and not %s", v.Error, v.Status, tt.want, scriptName)
			}
		})
	}
}
