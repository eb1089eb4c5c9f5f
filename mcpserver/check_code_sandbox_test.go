package mcpserver_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/mcpserver"
)

// check_code on scipy.stats distributions, over their real bundles (which
// record Provenance.Instances) in the real sandbox: code that calls the
// public instance passes under the class's name, under the instance's
// name and, for a method, under the method's path through the instance;
// code that never uses the distribution does not.
func TestCheckCode_SandboxInstances(t *testing.T) {
	c := inProcess(t, serverOver(t, "../index/testdata/instances.jsonl", mcpserver.Config{Harness: sandboxHarness(t)}))
	const (
		triang = "import numpy as np\nfrom scipy.stats import triang\nc = 0.158\n" +
			"mean, var, skew, kurt = triang.stats(c, moments='mvsk')\n" +
			"x = np.linspace(triang.ppf(0.01, c), triang.ppf(0.99, c), 100)\nrv = triang(c)\n" +
			"vals = triang.ppf([0.001, 0.5, 0.999], c)\nprint(np.allclose([0.001, 0.5, 0.999], triang.cdf(vals, c)))"
		fit = "import numpy as np\nfrom scipy.stats import irwinhall\n" +
			"data = irwinhall.rvs(5, size=50, random_state=np.random.default_rng(1))\n" +
			"try:\n    irwinhall.fit(data)\nexcept NotImplementedError as e:\n    print('not implemented:', e)"
		numpyOnly = "import numpy as np\nprint(np.mean(np.linspace(0, 1, 5)))"
	)
	tests := []struct {
		name, api, code string
		wantAPI         string
		wantInstance    string
		called          bool
		calls           int
		label           string
	}{
		// 7 calls: triang(c) freezes the distribution, which constructs
		// the spied class again (docs/protocol.md §4.4).
		{"Class", "scipy.stats.distributions.triang_gen", triang, "scipy.stats.distributions.triang_gen", "scipy.stats.triang", true, 7, "Pass"},
		{"InstanceName", "scipy.stats.triang", triang, "scipy.stats.distributions.triang_gen", "scipy.stats.triang", true, 7, "Pass"},
		{"OtherClass", "scipy.stats.cauchy", "from scipy.stats import cauchy\nprint(cauchy.cdf(0.0))", "scipy.stats.distributions.cauchy_gen", "scipy.stats.cauchy", true, 1, "Pass"},
		{"MethodThroughInstance", "scipy.stats.irwinhall.fit", fit, "scipy.stats.distributions.irwinhall_gen.fit", "scipy.stats.irwinhall.fit", true, 1, "Pass"},
		{"Method", "scipy.stats.distributions.irwinhall_gen.fit", fit, "scipy.stats.distributions.irwinhall_gen.fit", "scipy.stats.irwinhall.fit", true, 1, "Pass"},
		{"NeverCalled", "scipy.stats.triang", numpyOnly, "scipy.stats.distributions.triang_gen", "scipy.stats.triang", false, 0, "WrongAPISelection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, c, "check_code", map[string]any{"code": tt.code, "api_name": tt.api})
			wantOK(t, res)
			var out struct {
				checkOut
				Instances []string `json:"instances"`
				Calls     int      `json:"calls"`
			}
			structured(t, res, &out)
			txt := text(res)
			if out.APIName != tt.wantAPI || !slices.Contains(out.Instances, tt.wantInstance) || !out.Ran ||
				out.TargetCalled != tt.called || out.Calls != tt.calls || out.Label != tt.label {
				t.Errorf("check_code(%s) = api %s, instances %v, ran %v, called %v (%d calls), label %s; want %s with %s, ran, called %v (%d calls), %s\n%s",
					tt.api, out.APIName, out.Instances, out.Ran, out.TargetCalled, out.Calls, out.Label, tt.wantAPI, tt.wantInstance, tt.called, tt.calls, tt.label, txt)
			}
			if !strings.Contains(txt, "calls through its public instance count: "+strings.Join(out.Instances, ", ")) {
				t.Errorf("check_code(%s) text does not name the instances:\n%s", tt.api, txt)
			}
		})
	}
}

// check_code resolves api_name as get_api does: a short name or an import
// alias checks the API it names (with a NOTE), not a module of that name;
// a name the index does not know is spied as given, and the answer says so
// with the nearest names. A WrongImport answer says how the API is
// imported, a passing one shows the warnings the code raised, and stdout
// keeps the first line's leading spaces.
func TestCheckCode_SandboxResolvesNames(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{Harness: sandboxHarness(t)}))
	const (
		mapCode = "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2], 'b': [3, 4]})\nprint(df.map(lambda v: v * 2))"
		unstack = "import numpy as np\nprint(np.unstack(np.arange(6).reshape(2, 3)))"
		badImp  = "from numpy.lib.arraysetops import unique_counts\nprint(unique_counts([1, 1, 2]))"
		applyM  = "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})\nprint(df.applymap(lambda v: v * 2))\nprint(df.map(lambda v: v))"
	)
	for _, tt := range []struct {
		name, api, code string
		wantAPI, label  string
		wantText        []string
	}{
		{"ShortName", "DataFrame.map", mapCode, "pandas.DataFrame.map", "Pass",
			[]string{"NOTE: DataFrame.map resolved to pandas.DataFrame.map", "stdout (tail):\n   a  b\n"}},
		{"Alias", "np.unstack", unstack, "numpy.unstack", "Pass", []string{"NOTE: np.unstack resolved to numpy.unstack"}},
		{"Typo", "numpy.unstak", unstack, "numpy.unstak", "WrongAPISelection", []string{"NOTE: the index has no single API of this name", "numpy.unstack"}},
		{"WrongImport", "numpy.unique_counts", badImp, "numpy.unique_counts", "WrongImport", []string{"hint: numpy.unique_counts is imported as numpy.unique_counts"}},
		{"DeprecationWarning", "pandas.DataFrame.map", applyM, "pandas.DataFrame.map", "Pass", []string{"warnings:\n", "applymap has been deprecated"}},
		{"TwoBlocks", "numpy.unstack", "First:\n```python\nimport numpy as np\n```\nThen:\n```python\nprint(np.unstack(np.arange(6).reshape(2, 3)))\n```", "numpy.unstack", "WrongImport",
			[]string{"NOTE: the code has 2 fenced blocks; only one ran"}},
		// Two fences at the very start and end: both blocks still count, and
		// the one the protocol picks runs (not the prose between them).
		{"TwoBlocksAtEdges", "numpy.unstack", "```python\nimport numpy as np\nprint(np.unstack(np.arange(6).reshape(2, 3)))\n```\nExample\n```python\nx = 1\n```", "numpy.unstack", "Pass",
			[]string{"NOTE: the code has 2 fenced blocks; only one ran"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, c, "check_code", map[string]any{"code": tt.code, "api_name": tt.api})
			wantOK(t, res)
			var out checkOut
			structured(t, res, &out)
			txt := text(res)
			if out.APIName != tt.wantAPI || out.Label != tt.label {
				t.Errorf("check_code(%s) = api %s, label %s; want %s, %s\n%s", tt.api, out.APIName, out.Label, tt.wantAPI, tt.label, txt)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(txt, w) {
					t.Errorf("check_code(%s) text lacks %q:\n%s", tt.api, w, txt)
				}
			}
		})
	}
}
