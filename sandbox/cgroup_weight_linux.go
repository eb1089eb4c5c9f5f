package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A run's CPU weight while bwrap's helpers are young.
//
// On cgroup v1 each run has its own cpu cgroup at the hierarchy's root
// with the weight of one ordinary task (cpu.shares 1024). The kernel splits
// a group's weight among the CPUs in proportion to the group's load average
// on each, sleeping tasks' load included, and a new task starts with a full
// load average that decays with a 32 ms half-life (Linux
// kernel/sched/fair.c, init_entity_runnable_average, calc_group_shares).
// bwrap's monitor and its pid 1 are new tasks that sleep through the run;
// where they last ran on another CPU than the program's, the program
// starts with as little as a third of an ordinary task's weight (1 / (1 +
// 2)) and gets all of it only after ~150 ms, which slows short runs on a
// loaded host (§5). So the run's weight follows the helpers' decay,
// normal * (1 + 2 * 2^(-t/32ms)), in 32 ms steps from the program's start.
// The CPU quota (Limits.CPUs) is unchanged throughout.
const (
	runBoostHelpers = 2                     // bwrap's monitor and pid 1
	runBoostStep    = 32 * time.Millisecond // the load average's half-life
	runBoostSteps   = 5                     // then the helpers' share is under 1/16
)

// cpuWeight is a run cgroup's v1 CPU weight, raised for the start-up
// transient and brought back in steps.
type cpuWeight struct {
	dir    string // the run's v1 cpu cgroup; "" when it has none (v2, no cpu controller)
	normal int64  // its cpu.shares before the boost
}

// boostCPU sets the v1 cpu.shares of the run to its first-step value
// (normal * (1 + runBoostHelpers)) and returns what decay needs. Failures
// leave the weight alone.
func (r *runCgroup) boostCPU() cpuWeight {
	d := r.dirs["cpu"]
	if _, v2 := r.dirs[""]; v2 || d == "" {
		return cpuWeight{}
	}
	data, err := os.ReadFile(filepath.Join(d, "cpu.shares"))
	if err != nil {
		return cpuWeight{}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n <= 0 {
		return cpuWeight{}
	}
	w := cpuWeight{dir: d, normal: n}
	if writeFile(d, "cpu.shares", w.at(0)) != nil {
		return cpuWeight{}
	}
	return w
}

// at returns the weight for step k: normal * (1 + helpers * 2^-k), and
// normal from runBoostSteps on.
func (w cpuWeight) at(k int) int64 {
	if k >= runBoostSteps {
		return w.normal
	}
	return w.normal + w.normal*runBoostHelpers>>k
}

// decay lowers the weight one step every step from now on, down to the
// normal weight. The caller calls the returned stop when the run ends (a
// late write to a removed cgroup fails harmlessly); it is a no-op when
// nothing was boosted.
func (w cpuWeight) decay(step time.Duration) (stop func()) {
	if w.dir == "" {
		return func() {}
	}
	var (
		mu      sync.Mutex
		k       int
		stopped bool
		t       *time.Timer
	)
	var next func()
	next = func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		k++
		_ = writeFile(w.dir, "cpu.shares", w.at(k))
		if k < runBoostSteps {
			t.Reset(step)
		}
	}
	mu.Lock()
	t = time.AfterFunc(step, next)
	mu.Unlock()
	return func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
	}
}
