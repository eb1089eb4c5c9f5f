package evalharness

import (
	"maps"
	"slices"

	"github.com/novelapi/novelapi/pool"
)

// PassAtK returns the unbiased pass@k estimate for one problem with n
// evaluated samples of which c passed: 1 − C(n−c, k)/C(n, k), computed in the
// numerically stable product form 1 − Π_{i=n−c+1}^{n} (1 − k/i)
// (docs/sandbox.md §2, after the Codex paper's estimator).
//
// ok is false when the value is undefined: k < 1, n < k, or c outside [0, n].
// In particular PassAtK(2, 0, 5) is undefined, never 1 (openai/human-eval#35).
func PassAtK(n, c, k int) (v float64, ok bool) {
	if k < 1 || n < k || c < 0 || c > n {
		return 0, false
	}
	if c == 0 {
		return 0, true
	}
	if n-c < k {
		return 1, true
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod, true
}

// MeanPassAtK averages PassAtK(n_i, c_i, k) over problems, allowing n to
// differ per problem. ok is false when there are no problems or any problem
// has n_i < k: pass@k is reported only when every problem has n ≥ k
// (docs/sandbox.md §2, "Rules the harness should follow").
func MeanPassAtK(ns, cs []int, k int) (mean float64, ok bool) {
	if len(ns) == 0 || len(ns) != len(cs) {
		return 0, false
	}
	sum := 0.0
	for i := range ns {
		v, ok := PassAtK(ns[i], cs[i], k)
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum / float64(len(ns)), true
}

// ReportedK lists the k values for which pass@k and exec@k are computed
// (when defined) in [Metrics.PassAtK] and [Metrics.ExecAtK].
var ReportedK = []int{1, 5, 10, 20}

// Metrics aggregates the TaskResults of one group of tasks (a run, or one
// condition, library, difficulty or novelty type within it).
//
// Tasks whose greedy sample hit an infrastructure error are not counted in
// N or any rate; they are listed in InfraErrors instead (docs/sandbox.md §2:
// "Exclude INFRA_ERROR samples from n (and report them)"). Tasks of
// HumanEval-style pools without a prediction are left out the same way and
// counted in Missing. Rates are
// fractions in [0, 1]; a nil pointer means the rate is undefined for the
// group (no eligible task).
type Metrics struct {
	// N is the number of scored tasks (greedy sample not an infra error).
	N int `json:"n_tasks"`
	// Passed counts scored tasks whose greedy sample passed.
	Passed int `json:"passed"`
	// PassAt1 is the greedy solve rate Passed/N (docs/protocol.md §1.8 pass_at_1).
	PassAt1 float64 `json:"pass_at_1"`
	// ExecAt1 is the fraction of greedy samples that ran to completion
	// without an exception or timeout (passing or failing the assertions).
	ExecAt1 float64 `json:"exec_at_1"`
	// PassAtK maps k (as a decimal string) to the mean unbiased pass@k over
	// all n samples of each task (1 - C(n-c,k)/C(n,k), docs/sandbox.md §2),
	// present only when every scored task has n ≥ k. Its "1" is the mean
	// per-sample solve rate c/n, not PassAt1 (the greedy samples[0] only),
	// hence the key pass_at_k_unbiased.
	PassAtK map[string]float64 `json:"pass_at_k_unbiased,omitempty"`
	// ExecAtK is the same estimator with "executed" in place of "passed".
	ExecAtK map[string]float64 `json:"exec_at_k_unbiased,omitempty"`
	// Labels counts the greedy labels ("Pass" and the six failure labels;
	// "" when run without failure labels is counted under "").
	Labels map[string]int `json:"labels"`
	// Statuses counts the greedy samples' harness statuses (PASS,
	// HARNESS_TAMPER, TIMEOUT, NO_PREDICTION, ...; docs/sandbox.md §4.1).
	Statuses map[string]int `json:"statuses"`
	// NoPrediction counts the scored tasks that had no prediction
	// (pool.StatusNoPrediction); they count as failures.
	NoPrediction int `json:"no_prediction"`
	// Missing counts the tasks of pools that follow the HumanEval
	// convention that had no prediction (pool.TaskResult.Missing): they are
	// not scored, so N and every rate leave them out, as openai/human-eval
	// averages pass@k over the problems with a sample. MissingTasks lists
	// their ids, sorted.
	Missing      int      `json:"missing"`
	MissingTasks []string `json:"missing_tasks,omitempty"`
	// TargetInvocationRate is the fraction of greedy samples that called the
	// target API at least once (PriCoder's invocation rate), over the tasks
	// whose spy is on; nil when every task ran with the spy off.
	TargetInvocationRate *float64 `json:"target_invocation_rate"`
	// SpyOffTasks counts the scored tasks that ran with the spy requirement
	// off (spy_required false): they pass on their tests alone and do not
	// enter TargetInvocationRate.
	SpyOffTasks int `json:"spy_off_tasks"`
	// RequiredAPIRecall is the mean, over multi-API tasks (more than one
	// required API), of the fraction of required APIs the greedy sample
	// called. Nil when the group has no multi-API task.
	RequiredAPIRecall *float64 `json:"required_api_recall"`
	// MultiAPITasks counts the tasks entering RequiredAPIRecall.
	MultiAPITasks int `json:"multi_api_tasks"`
	// NonexistentCallRate is the fraction of greedy samples that called at
	// least one name that does not exist in the library version (PriCoder's
	// non-existent API rate).
	NonexistentCallRate *float64 `json:"nonexistent_call_rate"`
	// SignatureErrorRate is the fraction of greedy samples whose call of a
	// library API was rejected by its signature (PriCoder's signature errors).
	SignatureErrorRate *float64 `json:"signature_error_rate"`
	// InfraErrors lists the ids of tasks excluded for infrastructure errors,
	// sorted.
	InfraErrors []string `json:"infra_errors"`
}

// Judged is the number of tasks that were evaluated and decided: N
// without the tasks that had no prediction.
func (m Metrics) Judged() int { return m.N - m.NoPrediction }

// Breakdowns holds Metrics per value of each grouping key. Tasks with an
// empty key are grouped under "" (e.g. novelty unknown). A group counts its
// missing tasks (Missing) without naming them: the run's Metrics names
// them once (MissingTasks).
type Breakdowns struct {
	Condition  map[string]Metrics `json:"by_condition"`
	Library    map[string]Metrics `json:"by_library"`
	Difficulty map[string]Metrics `json:"by_difficulty"`
	Novelty    map[string]Metrics `json:"by_novelty"`
	Domain     map[string]Metrics `json:"by_domain"`
	// Group is keyed by the task's dataset group (imported pools, e.g.
	// CodeUpdateArena's package); absent when no task has a group.
	Group map[string]Metrics `json:"by_group,omitempty"`
}

// Compute aggregates results into Metrics. It never fails: malformed
// per-sample counts (c > n) make the pass@k of that k undefined.
func Compute(results []pool.TaskResult) Metrics {
	m := Metrics{Labels: map[string]int{}, Statuses: map[string]int{}, InfraErrors: []string{}}
	var ns, cs, es []int
	var exec, invoked, nonexist, sigerr int
	var recall float64
	for _, r := range results {
		if r.InfraError() {
			m.InfraErrors = append(m.InfraErrors, r.TaskID)
			continue
		}
		if r.Missing {
			m.Missing++
			m.MissingTasks = append(m.MissingTasks, r.TaskID)
			continue
		}
		m.N++
		m.Statuses[r.Status]++
		if r.Status == pool.StatusNoPrediction {
			m.NoPrediction++
		}
		if r.Passed {
			m.Passed++
		}
		if r.Executed {
			exec++
		}
		if r.SpyOff {
			m.SpyOffTasks++
		} else if r.TargetCalled {
			invoked++
		}
		if r.NonexistentCalls > 0 {
			nonexist++
		}
		if r.SignatureErrors > 0 {
			sigerr++
		}
		if len(r.RequiredAPIs) > 1 {
			m.MultiAPITasks++
			recall += float64(requiredCalled(r)) / float64(len(r.RequiredAPIs))
		}
		m.Labels[r.Label]++
		n, c, e := sampleCounts(r)
		ns, cs, es = append(ns, n), append(cs, c), append(es, e)
	}
	slices.Sort(m.InfraErrors)
	slices.Sort(m.MissingTasks)
	if m.N == 0 {
		return m
	}
	fn := float64(m.N)
	m.PassAt1 = float64(m.Passed) / fn
	m.ExecAt1 = float64(exec) / fn
	if spied := m.N - m.SpyOffTasks; spied > 0 {
		m.TargetInvocationRate = ptr(float64(invoked) / float64(spied))
	}
	m.NonexistentCallRate = ptr(float64(nonexist) / fn)
	m.SignatureErrorRate = ptr(float64(sigerr) / fn)
	if m.MultiAPITasks > 0 {
		m.RequiredAPIRecall = ptr(recall / float64(m.MultiAPITasks))
	}
	for _, k := range ReportedK {
		if v, ok := MeanPassAtK(ns, cs, k); ok {
			if m.PassAtK == nil {
				m.PassAtK = map[string]float64{}
			}
			m.PassAtK[itoa(k)] = v
		}
		if v, ok := MeanPassAtK(ns, es, k); ok {
			if m.ExecAtK == nil {
				m.ExecAtK = map[string]float64{}
			}
			m.ExecAtK[itoa(k)] = v
		}
	}
	return m
}

// ComputeBreakdowns groups results by condition, library, difficulty,
// novelty and domain and computes Metrics for each group.
func ComputeBreakdowns(results []pool.TaskResult) Breakdowns {
	by := func(results []pool.TaskResult, key func(pool.TaskResult) string) map[string]Metrics {
		groups := map[string][]pool.TaskResult{}
		for _, r := range results {
			k := key(r)
			groups[k] = append(groups[k], r)
		}
		out := make(map[string]Metrics, len(groups))
		for _, k := range slices.Sorted(maps.Keys(groups)) {
			m := Compute(groups[k])
			m.MissingTasks = nil // named once, in the run's Metrics
			out[k] = m
		}
		return out
	}
	var group map[string]Metrics
	if slices.ContainsFunc(results, func(r pool.TaskResult) bool { return r.Group != "" }) {
		group = by(results, func(r pool.TaskResult) string { return r.Group })
	}
	return Breakdowns{
		Group:      group,
		Condition:  by(withRunCondition(results), func(r pool.TaskResult) string { return r.Condition }),
		Library:    by(results, func(r pool.TaskResult) string { return r.Library }),
		Difficulty: by(results, func(r pool.TaskResult) string { return r.Difficulty }),
		Novelty:    by(results, func(r pool.TaskResult) string { return r.Novelty }),
		Domain:     by(results, func(r pool.TaskResult) string { return r.Domain }),
	}
}

// withRunCondition returns results with each missing task
// ([pool.TaskResult.Missing]) recorded without a condition given the
// run's condition, the one condition of the other results; when they have
// several, such a task is left out, counted in the run's Missing alone and
// never under an empty-named condition.
func withRunCondition(results []pool.TaskResult) []pool.TaskResult {
	var conds []string
	for _, r := range results {
		if !r.Missing && !slices.Contains(conds, r.Condition) {
			conds = append(conds, r.Condition)
		}
	}
	out := make([]pool.TaskResult, 0, len(results))
	for _, r := range results {
		if r.Missing && r.Condition == "" {
			if len(conds) != 1 {
				continue
			}
			r.Condition = conds[0]
		}
		out = append(out, r)
	}
	return out
}

// requiredCalled counts the required APIs the greedy sample called.
func requiredCalled(r pool.TaskResult) int {
	n := 0
	for _, api := range r.RequiredAPIs {
		if slices.Contains(r.CalledAPIs, api) {
			n++
		}
	}
	return n
}

// sampleCounts returns n (samples not lost to infra errors), c (passed) and
// e (executed) over all samples; a result without per-sample verdicts
// counts its greedy sample alone.
func sampleCounts(r pool.TaskResult) (n, c, e int) {
	if len(r.Samples) == 0 {
		return 1, b2i(r.Passed), b2i(r.Executed)
	}
	for _, s := range r.Samples {
		if s.Status == pool.StatusInfraError {
			continue
		}
		n++
		c += b2i(s.Passed)
		e += b2i(s.Executed)
	}
	return n, c, e
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ptr[T any](v T) *T { return &v }
