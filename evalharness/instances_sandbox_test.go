package evalharness

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/pool"
)

// Code a user writes for scipy.stats distributions: the bundle example of
// scipy.stats.distributions.triang_gen, which only uses the instance
// scipy.stats.triang (six calls through it), and a call of a method that
// scipy's irwinhall does not implement.
const (
	triangExample = `import numpy as np
from scipy.stats import triang
c = 0.158
mean, var, skew, kurt = triang.stats(c, moments='mvsk')
x = np.linspace(triang.ppf(0.01, c), triang.ppf(0.99, c), 100)
rv = triang(c)
vals = triang.ppf([0.001, 0.5, 0.999], c)
print(np.allclose([0.001, 0.5, 0.999], triang.cdf(vals, c)))`
	irwinhallExample = `import numpy as np
from scipy.stats import irwinhall
n = 10
mean, var, skew, kurt = irwinhall.stats(n, moments='mvsk')
vals = irwinhall.ppf([0.001, 0.5, 0.999], n)
print(np.allclose([0.001, 0.5, 0.999], irwinhall.cdf(vals, n)))`
	irwinhallFit = `import numpy as np
from scipy.stats import irwinhall
data = irwinhall.rvs(5, size=50, random_state=np.random.default_rng(1))
try:
    irwinhall.fit(data)
except NotImplementedError as e:
    print("not implemented:", e)`
	numpyOnly = `import numpy as np
x = np.linspace(0, 1, 5)
print(np.mean(x))`
)

// The instances of triang_gen and the method paths of irwinhall_gen.fit,
// as Provenance.Instances records them (index/testdata/instances.jsonl).
var (
	triangInstances = []string{"scipy.stats.triang", "scipy.stats.distributions.triang"}
	fitInstances    = []string{"scipy.stats.irwinhall.fit", "scipy.stats.distributions.irwinhall.fit"}
)

// TestCheckCode_Instances checks check_code on scipy.stats distributions,
// which users call through an instance (scipy.stats.triang) of the indexed
// class (triang_gen): the instance spy keeps the object usable and counts
// calls of it and of its methods, a class's instances count as the class,
// and a method reached through an instance neither breaks the setup nor
// goes unseen. Freezing a distribution (triang(c)) constructs its class
// again (rv_frozen.__init__: dist.__class__(**dist._updated_ctor_param())),
// a nested call of a class target that counts.
func TestCheckCode_Instances(t *testing.T) {
	h := newTestHarness(t)
	tests := []struct {
		name, api, code string
		instances       []string
		called          bool
		calls           int // 0: any
		label           string
	}{
		{"ClassThroughInstances", "scipy.stats.distributions.triang_gen", triangExample, triangInstances, true, 7, pool.LabelPass},
		{"OtherClassThroughInstances", "scipy.stats.distributions.cauchy_gen",
			"from scipy.stats import cauchy\nrv = cauchy()\nprint(cauchy.cdf(cauchy.ppf(0.5)))",
			[]string{"scipy.stats.cauchy", "scipy.stats.distributions.cauchy"}, true, 4, pool.LabelPass},
		{"ClassOfTwoInstances", "scipy.stats.distributions.reciprocal_gen",
			"from scipy.stats import loguniform\nprint(loguniform(0.01, 1.25).mean())",
			[]string{"scipy.stats.loguniform", "scipy.stats.reciprocal", "scipy.stats.distributions.loguniform", "scipy.stats.distributions.reciprocal"}, true, 2, pool.LabelPass},
		{"Instance", "scipy.stats.triang", triangExample, nil, true, 6, pool.LabelPass},
		{"InstanceBundle", "scipy.stats.irwinhall", irwinhallExample, nil, true, 3, pool.LabelPass},
		{"MethodThroughInstance", "scipy.stats.irwinhall.fit", irwinhallFit, nil, true, 1, pool.LabelPass},
		{"MethodWithInstances", "scipy.stats.distributions.irwinhall_gen.fit", irwinhallFit, fitInstances, true, 1, pool.LabelPass},
		{"ClassNeverUsed", "scipy.stats.distributions.triang_gen", numpyOnly, triangInstances, false, 0, pool.LabelWrongAPISelection},
		{"InstanceNeverUsed", "scipy.stats.triang", numpyOnly, nil, false, 0, pool.LabelWrongAPISelection},
		{"MethodNeverUsed", "scipy.stats.irwinhall.fit", "from scipy.stats import irwinhall\nprint(irwinhall.mean(4))", nil, false, 0, pool.LabelWrongAPISelection},
		// A ufunc is a callable instance too; numpy's own np.sum calls
		// np.add.reduce, also while the monitor fingerprints a record.
		{"Ufunc", "numpy.add", "import numpy as np\nassert isinstance(np.add, np.ufunc)\nprint(np.add(1, 2), np.add.reduce([1, 2, 3]), np.add.nin)\nprint(np.sum(np.arange(4.0)))", nil, true, 3, pool.LabelPass},
		{"UnresolvableInstance", "scipy.stats.distributions.triang_gen", triangExample, append([]string{"scipy.stats.no_such_instance"}, triangInstances...), true, 7, pool.LabelPass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr, err := h.CheckCode(context.Background(), tt.code, tt.api, bundles.TopLevel(tt.api), tt.instances...)
			if err != nil {
				t.Fatal(err)
			}
			if cr.Ran != true || cr.TargetCalled != tt.called || (tt.calls > 0 && cr.Calls != tt.calls) || !cr.SpyInstalled || cr.Label != tt.label {
				t.Errorf("CheckCode(%s) = ran %v, called %v (%d calls), spy installed %v, label %s (%s), %s: %s\nstderr: %s\nwant ran, called %v (%d calls), installed, %s",
					tt.api, cr.Ran, cr.TargetCalled, cr.Calls, cr.SpyInstalled, cr.Label, cr.Rationale, cr.ExceptionType, cr.Message, cr.Stderr, tt.called, tt.calls, tt.label)
			}
		})
	}
}

// TestRecordingMonitor_InstanceProxy checks, in the sandbox, what code can
// still do with an instance under the spy and which records its calls
// leave.
func TestRecordingMonitor_InstanceProxy(t *testing.T) {
	h := newTestHarness(t)
	task := &pool.Task{TaskID: "proxy", APIName: "scipy.stats.triang", Library: "scipy"}
	code := `import pickle
import scipy.stats
from scipy.stats import triang, rv_continuous
from scipy.stats._continuous_distns import triang_gen
assert isinstance(triang, rv_continuous) and isinstance(triang, triang_gen), type(triang)
assert triang is scipy.stats.distributions.triang
assert triang == scipy.stats.distributions.triang and hash(triang) == hash(scipy.stats.distributions.triang)
assert repr(triang).startswith("<scipy.stats._continuous_distns.triang_gen object")
assert triang.name == "triang" and triang.a == 0.0 and "pdf" in dir(triang)
assert triang.__doc__ and "triangular" in triang.__doc__
triang.badvalue = 7
assert triang.badvalue == 7
assert callable(triang) and callable(triang.pdf)
assert type(pickle.loads(pickle.dumps(triang))).__name__ == "triang_gen"
rv = triang(0.5)
p = triang.pdf(0.5, 0.5)
try:
    triang.pdf()
except TypeError:
    pass
else:
    raise AssertionError("pdf() without x did not raise")`
	job := runnerJob{Setup: buildSetup(task, setupOptions{leafBinding: true}), Code: code}
	out, err := h.execJob(context.Background(), sandboxtestEnv(t), job, task.Timeout())
	if err != nil {
		t.Fatal(err)
	}
	if out.Recs.Exception != nil || out.Res.ExitCode != 0 {
		t.Fatalf("code failed under the spy: exit %d\n%s", out.Res.ExitCode, out.Res.Stderr)
	}
	spy := out.Recs.Spy
	if spy == nil || !spy.Installed || spy.Count != 3 {
		t.Fatalf("spy = %+v; want installed, 3 calls (triang(0.5), triang.pdf twice)", spy)
	}
	// One record per outermost call: the instance's own call, then its
	// method with the method's arguments, also when it raised.
	var got []string
	for _, raw := range spy.Calls {
		var r struct {
			Kind   string `json:"kind"`
			Method string `json:"method"`
			Ret    struct {
				T string `json:"t"`
			} `json:"ret"`
			Args map[string]json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		_, x := r.Args["x"]
		got = append(got, fmt.Sprintf("%s %s %s x=%v", r.Kind, r.Method, r.Ret.T, x))
	}
	want := []string{"call  scipy.rv_continuous_frozen x=false", "call pdf number x=true", "call pdf raised x=false"}
	if !slices.Equal(got, want) {
		t.Errorf("records %q; want %q", got, want)
	}
}
