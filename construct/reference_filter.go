package construct

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/progress"
	"github.com/novelapi/novelapi/internal/stamp"
	"github.com/novelapi/novelapi/pool"
)

// A C1Record is one line of filters/c1.jsonl (docs/protocol.md §1.7).
type C1Record struct {
	TaskID  string  `json:"task_id"`
	APIName string  `json:"api_name"`
	Passed  bool    `json:"passed"`
	Error   *string `json:"error"`
	// CallsStatus is the status of the task's reference call records.
	CallsStatus string `json:"calls_status,omitempty"`
	Label       string `json:"label,omitempty"`
}

// C1Config configures RecordAndFilterC1.
type C1Config struct {
	Harness *evalharness.Harness
	// Dir receives expected_calls.jsonl, filters/c1.jsonl and
	// instances/c1.txt; records already there are reused (resume) when
	// the harness that made them had the same scripts (see [C1Stamp]).
	Dir string
	// Workers is the number of concurrent tasks; 0 means GOMAXPROCS.
	Workers  int
	Progress io.Writer
	Log      *slog.Logger
	// TestCheck, when set, records C1's verdicts on the references in the
	// pool's mutant-check file (evalharness.CheckFile in Dir), running the
	// mutant check for the tasks it lacks, so that evaluation finds every
	// task checked (docs/mutants.md §3).
	TestCheck bool
}

// C1Summary counts the outcome of RecordAndFilterC1.
type C1Summary struct {
	Tasks     int            `json:"tasks"`
	Passed    int            `json:"passed"`
	ByLibrary map[string]int `json:"passed_by_library"`
	// CallStatus counts the tasks' call-record statuses (ok, unstable, ...).
	CallStatus map[string]int `json:"call_status"`
	Instance   string         `json:"instance"` // path of instances/c1.txt
	// Tests is the check of the pool's tests with C1's reference verdicts;
	// nil without C1Config.TestCheck.
	Tests *evalharness.PoolCheck `json:"tests,omitempty"`
}

// C1Stamp returns the stamp of a pool's call records and C1 verdicts
// (filters/c1.jsonl.stamp.json): the [evalharness.ScriptsDigest] of the
// harness that makes them.
func C1Stamp() stamp.Stamp {
	s, _ := stamp.New("call records and C1", 1, nil)
	return s.WithInput("harness", evalharness.ScriptsDigest())
}

// RecordAndFilterC1 builds each task's reference call records (§4.5) and
// runs the C1 filter (Stage 4): a task passes when its records have status
// ok and its masked region, evaluated as a completion through the full
// harness (monitor, call-record check, execution_test), passes. Results are
// appended per task, so an interrupted run resumes. Records made by a
// harness with other scripts ([C1Stamp] differs, or is missing) are
// discarded and made again: expected_calls.jsonl and filters/c1.jsonl start
// empty.
func RecordAndFilterC1(ctx context.Context, tasks []*pool.Task, cfg C1Config) (C1Summary, error) {
	if cfg.Harness == nil || cfg.Dir == "" {
		return C1Summary{}, errors.New("construct: C1Config needs Harness and Dir")
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	for _, d := range []string{"filters", "instances"} {
		if err := os.MkdirAll(filepath.Join(cfg.Dir, d), 0o755); err != nil {
			return C1Summary{}, err
		}
	}
	expPath := filepath.Join(cfg.Dir, "expected_calls.jsonl")
	c1Path := filepath.Join(cfg.Dir, "filters", "c1.jsonl")
	doneExp := map[string]*pool.ExpectedCalls{}
	if recs, _, err := jsonl.Read[*pool.ExpectedCalls](expPath, jsonl.ReadOptions{SkipBad: true}); err == nil {
		for _, r := range recs {
			doneExp[r.TaskID] = r
		}
	}
	doneC1 := map[string]C1Record{}
	if recs, _, err := jsonl.Read[C1Record](c1Path, jsonl.ReadOptions{SkipBad: true}); err == nil {
		for _, r := range recs {
			doneC1[r.TaskID] = r
		}
	}
	if why := stamp.Stale(c1Path, C1Stamp()); why != "" {
		if len(doneExp) > 0 || len(doneC1) > 0 {
			log.Info("making the call records and C1 again", "dir", cfg.Dir, "why", why)
		}
		doneExp, doneC1 = map[string]*pool.ExpectedCalls{}, map[string]C1Record{}
		for _, p := range []string{expPath, c1Path} {
			if err := atomicfile.Write(p, nil, 0o644); err != nil {
				return C1Summary{}, err
			}
		}
		if err := stamp.Write(c1Path, C1Stamp()); err != nil {
			return C1Summary{}, fmt.Errorf("stamp %s: %w", c1Path, err)
		}
	}
	expW, err := jsonl.OpenAppend[*pool.ExpectedCalls](expPath)
	if err != nil {
		return C1Summary{}, err
	}
	defer expW.Close()
	c1W, err := jsonl.OpenAppend[C1Record](c1Path)
	if err != nil {
		return C1Summary{}, err
	}
	defer c1W.Close()

	bar := progress.New(cfg.Progress, len(tasks), "call records + C1")
	var (
		mu    sync.Mutex
		first error
	)
	results := map[string]C1Record{}
	status := map[string]string{}
	var g errgroup.Group
	g.SetLimit(cfg.Workers)
	for _, t := range tasks {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			rec, ec, fresh, err := c1One(ctx, cfg.Harness, t, doneExp[t.TaskID], doneC1)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil && ctx.Err() == nil {
					first = fmt.Errorf("task %s: %w", t.TaskID, err)
				}
				log.Warn("C1 infrastructure error", "task", t.TaskID, "err", err)
			} else {
				if fresh.exp {
					err = expW.Write(ec)
				}
				if err == nil && fresh.c1 {
					err = c1W.Write(rec)
				}
				if err != nil && first == nil {
					first = err
				}
				results[t.TaskID] = rec
				status[t.TaskID] = ec.Status
			}
			bar.Add(1)
			return nil
		})
	}
	g.Wait()
	if err := ctx.Err(); err != nil {
		return C1Summary{}, context.Cause(ctx)
	}
	sum := C1Summary{Tasks: len(tasks), ByLibrary: map[string]int{}, CallStatus: map[string]int{},
		Instance: filepath.Join(cfg.Dir, "instances", "c1.txt")}
	var ids []string
	for _, t := range tasks {
		r, ok := results[t.TaskID]
		if !ok {
			continue
		}
		sum.CallStatus[status[t.TaskID]]++
		if r.Passed {
			sum.Passed++
			sum.ByLibrary[t.Library]++
			ids = append(ids, t.TaskID)
		}
	}
	sort.Strings(ids)
	var data []byte
	for _, id := range ids {
		data = append(data, id...)
		data = append(data, '\n')
	}
	if err := atomicfile.Write(sum.Instance, data, 0o644); err != nil {
		return sum, err
	}
	if cfg.TestCheck && first == nil {
		pc, err := evalharness.CheckPool(ctx, evalharness.PoolCheckConfig{
			Harness: cfg.Harness, Tasks: tasks, References: C1References(cfg.Dir),
			Path: filepath.Join(cfg.Dir, evalharness.CheckFile), Workers: cfg.Workers, Progress: cfg.Progress, Log: log,
		})
		if err != nil {
			return sum, err
		}
		sum.Tests = pc
	}
	return sum, first
}

type freshness struct{ exp, c1 bool }

func c1One(ctx context.Context, h *evalharness.Harness, t *pool.Task, ec *pool.ExpectedCalls, doneC1 map[string]C1Record) (C1Record, *pool.ExpectedCalls, freshness, error) {
	var fresh freshness
	if ec == nil {
		var err error
		ec, err = h.RecordExpectedCalls(ctx, t)
		if err != nil {
			return C1Record{}, nil, fresh, err
		}
		fresh.exp = true
	}
	if r, ok := doneC1[t.TaskID]; ok && !fresh.exp {
		return r, ec, fresh, nil
	}
	fresh.c1 = true
	rec := C1Record{TaskID: t.TaskID, APIName: t.APIName, CallsStatus: ec.Status}
	if ec.Status != pool.CallsOK {
		msg := "reference call records: " + ec.Status
		rec.Error = &msg
		return rec, ec, fresh, nil
	}
	v, err := h.Evaluate(ctx, t, ec, "```python\n"+t.MaskedRegion+"\n```")
	if err != nil {
		return C1Record{}, nil, fresh, err
	}
	rec.Passed, rec.Label = v.Passed, v.Label
	if !v.Passed {
		msg := v.Status + ": " + v.Error
		if len(msg) > 200 {
			msg = msg[len(msg)-200:]
		}
		rec.Error = &msg
	}
	return rec, ec, fresh, nil
}
