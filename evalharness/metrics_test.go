package evalharness_test

import (
	"math"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
)

func TestPassAtK(t *testing.T) {
	// Test vectors of docs/sandbox.md §2, checked there with exact binomials.
	tests := []struct {
		name    string
		n, c, k int
		want    float64
		wantOK  bool
	}{
		{"OneOf200K1", 200, 1, 1, 0.005, true},
		{"OneOf200K100", 200, 1, 100, 0.5, true},
		{"HalfK1", 10, 5, 1, 0.5, true},
		{"AllPass", 10, 10, 5, 1, true},
		{"NonePass", 5, 0, 1, 0, true},
		{"ThreeOneTwo", 3, 1, 2, 0.666667, true},
		{"Codex", 200, 37, 10, 0.877375, true},
		{"Large", 1000, 3, 500, 0.875375, true},
		{"KAboveNUndefined", 2, 0, 5, 0, false},
		{"KZero", 5, 1, 0, 0, false},
		{"CAboveN", 5, 6, 1, 0, false},
		{"NegativeC", 5, -1, 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := evalharness.PassAtK(tt.n, tt.c, tt.k)
			if ok != tt.wantOK || math.Abs(got-tt.want) > 5e-7 {
				t.Errorf("PassAtK(%d, %d, %d) = %.7f, %v; want %.6f, %v", tt.n, tt.c, tt.k, got, ok, tt.want, tt.wantOK)
			}
			if !ok && got == 1 {
				t.Errorf("PassAtK(%d, %d, %d) returned 1 for an undefined value", tt.n, tt.c, tt.k)
			}
		})
	}
}

func TestPassAtK_MatchesBinomials(t *testing.T) {
	binom := func(n, k int) float64 {
		if k < 0 || k > n {
			return 0
		}
		r := 1.0
		for i := 1; i <= k; i++ {
			r = r * float64(n-k+i) / float64(i)
		}
		return r
	}
	for n := 1; n <= 20; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				want := 1 - binom(n-c, k)/binom(n, k)
				got, ok := evalharness.PassAtK(n, c, k)
				if !ok || math.Abs(got-want) > 1e-12 {
					t.Fatalf("PassAtK(%d, %d, %d) = %v, %v; want %v", n, c, k, got, ok, want)
				}
			}
		}
	}
}

func TestMeanPassAtK(t *testing.T) {
	if got, ok := evalharness.MeanPassAtK([]int{10, 5}, []int{5, 0}, 1); !ok || math.Abs(got-0.25) > 1e-12 {
		t.Errorf("MeanPassAtK = %v, %v; want 0.25, true", got, ok)
	}
	// pass@k is reported only when every problem has n >= k (docs/sandbox.md §2).
	if _, ok := evalharness.MeanPassAtK([]int{10, 4}, []int{5, 4}, 5); ok {
		t.Error("MeanPassAtK with a problem of n < k is defined; want undefined")
	}
	if _, ok := evalharness.MeanPassAtK(nil, nil, 1); ok {
		t.Error("MeanPassAtK of no problems is defined; want undefined")
	}
}

// handResults are six tasks with known metrics: two conditions, two
// libraries, one infra error, one multi-sample task.
func handResults() []pool.TaskResult {
	return []pool.TaskResult{
		{TaskID: "a", Library: "numpy", Difficulty: "easy", Novelty: "new", Condition: "S", Passed: true, Label: "Pass", Status: "PASS",
			Executed: true, TargetCalled: true, NSamples: 1, NPassed: 1, NExecuted: 1},
		{TaskID: "b", Library: "numpy", Difficulty: "hard", Novelty: "modified", Condition: "S", Label: "WrongParam", Status: "RUNTIME_ERROR",
			TargetCalled: true, SignatureErrors: 1, NSamples: 1},
		{TaskID: "c", Library: "scipy", Difficulty: "easy", Novelty: "new", Condition: "E", Label: "WrongImport", Status: "RUNTIME_ERROR",
			NonexistentCalls: 2, NSamples: 1, RequiredAPIs: []string{"x.f", "x.g"}, CalledAPIs: []string{"x.g"}},
		{TaskID: "d", Library: "scipy", Difficulty: "easy", Novelty: "modified", Condition: "E", Passed: true, Label: "Pass", Status: "PASS",
			Executed: true, TargetCalled: true, RequiredAPIs: []string{"x.f", "x.g"}, CalledAPIs: []string{"x.f", "x.g"},
			Samples: []pool.SampleVerdict{
				{Passed: true, Executed: true, Status: "PASS"}, {Status: "WRONG_ANSWER", Executed: true},
				{Status: "INFRA_ERROR"}, {Passed: true, Executed: true, Status: "PASS"}, {Status: "CRASH"},
			}},
		{TaskID: "e", Library: "scipy", Difficulty: "medium", Condition: "E", Label: "WrongLogic", Status: "WRONG_ANSWER",
			Executed: true, TargetCalled: true, NSamples: 1},
		{TaskID: "f", Library: "scipy", Condition: "E", Status: "INFRA_ERROR", Error: "sandbox: backend unavailable"},
	}
}

func TestCompute(t *testing.T) {
	m := evalharness.Compute(handResults())
	if m.N != 5 || m.Passed != 2 {
		t.Fatalf("N, Passed = %d, %d; want 5, 2", m.N, m.Passed)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"PassAt1", m.PassAt1, 0.4},
		{"ExecAt1", m.ExecAt1, 0.6},
		{"TargetInvocationRate", *m.TargetInvocationRate, 0.8},
		{"NonexistentCallRate", *m.NonexistentCallRate, 0.2},
		{"SignatureErrorRate", *m.SignatureErrorRate, 0.2},
		{"RequiredAPIRecall", *m.RequiredAPIRecall, 0.75}, // (1/2 + 2/2) / 2
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	if m.MultiAPITasks != 2 {
		t.Errorf("MultiAPITasks = %d; want 2", m.MultiAPITasks)
	}
	wantLabels := map[string]int{"Pass": 2, "WrongParam": 1, "WrongImport": 1, "WrongLogic": 1}
	if len(m.Labels) != len(wantLabels) {
		t.Errorf("Labels = %v; want %v", m.Labels, wantLabels)
	}
	for l, c := range wantLabels {
		if m.Labels[l] != c {
			t.Errorf("Labels[%q] = %d; want %d", l, m.Labels[l], c)
		}
	}
	if len(m.InfraErrors) != 1 || m.InfraErrors[0] != "f" {
		t.Errorf("InfraErrors = %v; want [f]", m.InfraErrors)
	}
	// Task d has n=4 scored samples (one infra error excluded), so pass@5 is
	// undefined for the run; pass@1 over all samples: (1+0+0+2/4+0)/5.
	if v, ok := m.PassAtK["1"]; !ok || math.Abs(v-0.3) > 1e-12 {
		t.Errorf("PassAtK[1] = %v, %v; want 0.3", v, ok)
	}
	if _, ok := m.PassAtK["5"]; ok {
		t.Errorf("PassAtK[5] defined with a task of n=1; want undefined")
	}
	// exec@1 over all samples: (1+0+0+3/4+1)/5.
	if v := m.ExecAtK["1"]; math.Abs(v-0.55) > 1e-12 {
		t.Errorf("ExecAtK[1] = %v; want 0.55", v)
	}
}

func TestComputeBreakdowns(t *testing.T) {
	b := evalharness.ComputeBreakdowns(handResults())
	tests := []struct {
		name    string
		group   map[string]evalharness.Metrics
		key     string
		wantN   int
		wantP1  float64
		wantInf int
	}{
		{"ConditionS", b.Condition, "S", 2, 0.5, 0},
		{"ConditionE", b.Condition, "E", 3, 1.0 / 3, 1},
		{"LibraryNumpy", b.Library, "numpy", 2, 0.5, 0},
		{"DifficultyEasy", b.Difficulty, "easy", 3, 2.0 / 3, 0},
		{"NoveltyModified", b.Novelty, "modified", 2, 0.5, 0},
		{"NoveltyUnknown", b.Novelty, "", 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := tt.group[tt.key]
			if !ok {
				t.Fatalf("group %q missing", tt.key)
			}
			if m.N != tt.wantN || math.Abs(m.PassAt1-tt.wantP1) > 1e-12 || len(m.InfraErrors) != tt.wantInf {
				t.Errorf("N, pass@1, infra = %d, %v, %d; want %d, %v, %d", m.N, m.PassAt1, len(m.InfraErrors), tt.wantN, tt.wantP1, tt.wantInf)
			}
		})
	}
}

func TestSummarize_PassAt5(t *testing.T) {
	rs := []pool.TaskResult{
		{TaskID: "a", Passed: true, Label: "Pass", NSamples: 5, NPassed: 1,
			Samples: []pool.SampleVerdict{{Passed: true}, {}, {}, {}, {}}},
		{TaskID: "b", Label: "WrongLogic", NSamples: 5,
			Samples: []pool.SampleVerdict{{}, {}, {}, {}, {}}},
	}
	s := evalharness.Summarize(rs, "v")
	if s.PassAt5 == nil || math.Abs(*s.PassAt5-0.5) > 1e-12 {
		t.Errorf("PassAt5 = %v; want 0.5", s.PassAt5)
	}
	if s.PassAt1 != 0.5 || s.N != 2 {
		t.Errorf("PassAt1, N = %v, %d; want 0.5, 2", s.PassAt1, s.N)
	}
}
