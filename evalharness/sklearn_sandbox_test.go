package evalharness

import (
	"errors"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// sklearnEnv is the environment with scikit-learn the tests below need:
// trixie-wide (16 libraries), which CI does not build (a wide environment
// would make .ci/run slow), so they skip without it, also under
// NOVELAPI_REQUIRE_SANDBOX=1.
const sklearnEnv = "trixie-wide"

func sklearnHarness(t *testing.T) *Harness {
	t.Helper()
	r := sandboxtest.Runner(t)
	store := debenv.OpenStore(sandboxtest.Home())
	env, err := store.Get(sklearnEnv)
	if errors.Is(err, debenv.ErrUnknownEnvironment) {
		t.Skipf("SKIPPING: environment %s (scikit-learn) is not built; it is no CI environment (build it with novelapi env build --suite trixie --name %s and a library list holding scikit-learn)", sklearnEnv, sklearnEnv)
	}
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Runner: r, Store: store, Envs: func(string) (*sandbox.Environment, error) { return env, nil }})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSpy_ScikitLearn spies scikit-learn estimators, whose machinery reads
// the class itself: get_params and repr read the parameters from the
// signature of the class's __init__, clone rebuilds an estimator from its
// class and parameters and checks each parameter is the one it passed,
// Pipeline and cross_val_score clone their steps, pickle finds the class by
// module and qualified name. Every run must pass and count exactly the
// constructions the code makes (clone's included).
func TestSpy_ScikitLearn(t *testing.T) {
	h := sklearnHarness(t)
	data := "import numpy as np\nX = np.array([[0.0, 1.0], [1.0, 0.0], [0.2, 0.9], [0.9, 0.1], [0.1, 0.8], [0.8, 0.3]])\ny = np.array([0, 1, 0, 1, 0, 1])\n"
	checkSpyCases(t, h, "sklearn", []spyCase{
		{"get_params and repr", "sklearn.linear_model.LogisticRegression",
			"from sklearn.linear_model import LogisticRegression\nm = LogisticRegression(C=0.5)\np = m.get_params()\n" +
				"assert p['C'] == 0.5 and 'penalty' in p and 'max_iter' in p, p\nassert repr(m) == 'LogisticRegression(C=0.5)', repr(m)\n" +
				"m.set_params(max_iter=50)\nassert m.max_iter == 50", 1},
		{"clone", "sklearn.linear_model.LogisticRegression",
			"from sklearn.base import clone\nfrom sklearn.linear_model import LogisticRegression\nm = LogisticRegression(C=2.0)\n" +
				"c = clone(m)\nassert c is not m and c.get_params() == m.get_params() and type(c) is type(m)", 2},
		{"fit predict pickle", "sklearn.linear_model.LogisticRegression", data +
			"import pickle\nfrom sklearn.linear_model import LogisticRegression\nm = LogisticRegression().fit(X, y)\n" +
			"assert (m.predict(X) == y).all()\nm2 = pickle.loads(pickle.dumps(m))\nassert (m2.predict(X) == y).all() and isinstance(m2, LogisticRegression)", 1},
		{"pipeline step", "sklearn.linear_model.LogisticRegression", data +
			"from sklearn.pipeline import Pipeline\nfrom sklearn.preprocessing import StandardScaler\nfrom sklearn.linear_model import LogisticRegression\n" +
			"p = Pipeline([('scale', StandardScaler()), ('clf', LogisticRegression())]).fit(X, y)\nassert (p.predict(X) == y).all()\n" +
			"assert p.get_params()['clf__C'] == 1.0", 1},
		{"cross_val_score clones", "sklearn.linear_model.LogisticRegression", data +
			"from sklearn.model_selection import cross_val_score\nfrom sklearn.linear_model import LogisticRegression\n" +
			"s = cross_val_score(LogisticRegression(), X, y, cv=2)\nassert len(s) == 2", 3},
		{"Pipeline class", "sklearn.pipeline.Pipeline", data +
			"from sklearn.base import clone\nfrom sklearn.pipeline import Pipeline\nfrom sklearn.preprocessing import StandardScaler\nfrom sklearn.linear_model import LogisticRegression\n" +
			"p = Pipeline([('scale', StandardScaler()), ('clf', LogisticRegression())])\nq = clone(p).fit(X, y)\n" +
			"assert (q.predict(X) == y).all() and p.get_params()['memory'] is None", 2},
		// clone calls itself on each of the three parameters: every call
		// counts (the spy records only the outermost).
		{"clone function", "sklearn.base.clone",
			"from sklearn.base import clone\nfrom sklearn.preprocessing import StandardScaler\nassert clone(StandardScaler(with_mean=False)).with_mean is False", 4},
		{"estimator method", "sklearn.preprocessing.StandardScaler.fit_transform", data +
			"from sklearn.preprocessing import StandardScaler\nZ = StandardScaler().fit_transform(X)\nassert abs(Z.mean()) < 1e-9", 1},
	})
}

// TestEvaluate_ScikitLearnEstimatorAcrossProcesses: a task whose entry
// point returns a fitted estimator of the spied class; the test (in the
// judge's process) calls its predict and reads its parameters. The
// reference passes and a completion that fits another estimator fails as
// not calling the target.
func TestEvaluate_ScikitLearnEstimatorAcrossProcesses(t *testing.T) {
	h := sklearnHarness(t)
	task := &pool.Task{
		TaskID: "sklearn-fit", APIName: "sklearn.linear_model.LogisticRegression", Library: "sklearn",
		Description: "Fit a logistic regression with C=0.5 and return it.",
		ContextCode: "import numpy as np\nfrom sklearn.linear_model import LogisticRegression",
		EntryPoint:  "fit_model", SpyScope: pool.SpyScopeEntryPoint, Origin: "test", Generator: "import:test",
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor("sklearn.linear_model.LogisticRegression"), TargetAPI: "sklearn.linear_model.LogisticRegression",
			ExecutionTest: "assert _target_api_spy_installed\n_target_api_call_count[0] = 0\n" + pool.EndCheckMarker + "\n" +
				"X = np.array([[0.0, 1.0], [1.0, 0.0], [0.2, 0.9], [0.9, 0.1]])\ny = np.array([0, 1, 0, 1])\n" +
				"m = fit_model(X, y)\nassert m.get_params()['C'] == 0.5\nassert (m.predict(X) == y).all()\n",
		},
	}
	exp := &pool.ExpectedCalls{TaskID: task.TaskID, Status: pool.CallsOK}
	for _, tt := range []struct {
		name, code string
		pass       bool
		status     string
	}{
		{"Reference", "def fit_model(X, y):\n    return LogisticRegression(C=0.5).fit(X, y)\n", true, pool.StatusPass},
		{"OtherEstimator", "from sklearn.svm import SVC\n\ndef fit_model(X, y):\n    m = SVC(C=0.5).fit(X, y)\n    return m\n", false, pool.StatusAPINotCalled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Evaluate(t.Context(), task, exp, "```python\n"+tt.code+"```")
			if err != nil {
				t.Fatal(err)
			}
			if v.Passed != tt.pass || v.Status != tt.status {
				t.Errorf("passed %v status %s (want %v %s), spy calls %d: %s", v.Passed, v.Status, tt.pass, tt.status, v.SpyCalls, v.Error)
			}
		})
	}
}

// TestSpy_MatplotlibAttributeParents spies targets whose parent path is
// no importable module: pyplot is a module, not a package, so
// "import matplotlib.pyplot.style" fails although matplotlib.pyplot.style
// is an attribute holding the module matplotlib.style (the issue's
// example); the figure class is reached through pyplot as well.
func TestSpy_MatplotlibAttributeParents(t *testing.T) {
	h := sklearnHarness(t)
	const agg = "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
	checkSpyCases(t, h, "matplotlib", []spyCase{
		{"style.use through pyplot", "matplotlib.pyplot.style.use", agg +
			"plt.style.use('ggplot')\nassert plt.rcParams['axes.facecolor'] == '#E5E5E5', plt.rcParams['axes.facecolor']", 1},
		{"style.context through pyplot", "matplotlib.pyplot.style.context", agg +
			"with plt.style.context('dark_background'):\n    assert plt.rcParams['figure.facecolor'] == 'black'\nassert plt.rcParams['figure.facecolor'] == 'white'", 1},
		{"class through pyplot", "matplotlib.pyplot.Figure", agg +
			"f = plt.Figure(figsize=(2, 3))\nassert tuple(f.get_size_inches()) == (2.0, 3.0) and isinstance(f, matplotlib.figure.Figure)", 1},
	})
}
