package evalharness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/novelapi/novelapi/pool"
)

// referenceRuns are the (global seed, randomise constant seeds) pairs of
// the reference runs (docs/protocol.md §4.5 step 2).
var referenceRuns = []struct {
	Seed      int
	Randomise bool
}{{11, false}, {22, false}, {33, true}, {44, true}}

// RecordExpectedCalls builds a task's reference call records as protocol
// §4.5 describes: choose the reference (masked_region if it passes the
// harness without a call check, else reference_solution), run it four times
// with reseeding and seed randomisation, and fold the runs' records. A
// reference that fails is a record with status reference_failed, not an
// error; the error is for infrastructure failures only.
func (h *Harness) RecordExpectedCalls(ctx context.Context, task *pool.Task) (*pool.ExpectedCalls, error) {
	ec := &pool.ExpectedCalls{TaskID: task.TaskID, APIName: task.APIName, ReferenceSource: "none", Expected: []json.RawMessage{}}
	env, err := h.environment(task)
	if err != nil {
		return nil, err
	}
	torch := strings.Contains(task.ContextCode, "torch") || strings.Contains(task.ReferenceSolution, "torch")
	refJob := func(ref string, seed int, randomise bool) runnerJob {
		o := setupOptions{leafBinding: true}
		if seed != 0 {
			o.prelude = reseedPrelude(seed, torch)
		}
		plan := planExtraction(ref)
		j := newRunnerJob(task, o)
		j.Plan, j.RandomizeSeeds, j.EntryPoint = &plan, randomise, task.EntryPoint
		j.Secret = secretJob{
			Test: task.TestHarness.ExecutionTest, ExecutionTest: task.TestHarness.ExecutionTest,
			InferArgv: true, NormaliseTest: true,
		}
		return j
	}
	var ref string
	for _, cand := range []struct{ src, code string }{{"masked_region", task.MaskedRegion}, {"reference_solution", task.ReferenceSolution}} {
		if strings.TrimSpace(cand.code) == "" {
			continue
		}
		out, err := h.execWithRetry(ctx, env, refJob(cand.code, 0, false), task.Timeout())
		if err != nil {
			return nil, err
		}
		if runStatus(out) == pool.StatusPass {
			ref, ec.ReferenceSource = cand.code, cand.src
			break
		}
	}
	if ref == "" {
		ec.Status = pool.CallsReferenceFailed
		return ec, nil
	}
	var runs [][]any
	for _, rr := range referenceRuns {
		out, err := h.execWithRetry(ctx, env, refJob(ref, rr.Seed, rr.Randomise), task.Timeout())
		if err != nil {
			return nil, err
		}
		if runStatus(out) != pool.StatusPass || out.Recs.Spy == nil {
			continue
		}
		var recs []any
		for _, raw := range out.Recs.Spy.Calls {
			v, err := decodeNumbers(raw)
			if err != nil {
				return nil, fmt.Errorf("task %s: spy record: %w", task.TaskID, err)
			}
			recs = append(recs, v)
		}
		runs = append(runs, recs)
	}
	ec.NRuns = len(runs)
	folded, status := foldRuns(runs)
	ec.Status = status
	if status != pool.CallsOK && status != pool.CallsUnstable {
		return ec, nil
	}
	seen := map[string]bool{}
	for _, rec := range folded {
		m, _ := rec.(map[string]any)
		if m == nil {
			continue
		}
		shaped := shapeRecord(m)
		b, err := json.Marshal(shaped)
		if err != nil {
			return nil, err
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			ec.Expected = append(ec.Expected, b)
		}
	}
	return ec, nil
}

func decodeNumbers(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// foldRuns combines the runs' records (§4.5 step 3).
func foldRuns(runs [][]any) ([]any, string) {
	switch {
	case len(runs) < 2:
		return nil, pool.CallsReferenceFailed
	case len(runs[0]) == 0:
		return nil, pool.CallsNoCalls
	}
	same := true
	for _, r := range runs[1:] {
		if len(r) != len(runs[0]) {
			same = false
		}
	}
	out := make([]any, 0, len(runs[0]))
	if same {
		for i, acc := range runs[0] {
			for _, r := range runs[1:] {
				acc = orEmpty(stable(acc, r[i]))
			}
			out = append(out, acc)
		}
		return out, pool.CallsOK
	}
	// Unstable: match each first-run record against the other runs'
	// records of the same kind, keeping the largest stable intersection.
	for _, rec := range runs[0] {
		acc := rec
		for _, r := range runs[1:] {
			var best any
			bestLen := -1
			for _, cand := range r {
				if kindOf(cand) != kindOf(rec) {
					continue
				}
				s := orEmpty(stable(acc, cand))
				b, _ := json.Marshal(s)
				if len(b) > bestLen {
					best, bestLen = s, len(b)
				}
			}
			acc = orEmpty(best)
		}
		out = append(out, acc)
	}
	return out, pool.CallsUnstable
}

func kindOf(v any) any {
	if m, ok := v.(map[string]any); ok {
		return m["kind"]
	}
	return nil
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// stable is §4.5's stable(a, b): the part of a that b reproduces, nil when
// nothing (Python None).
func stable(a, b any) any {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return nil
		}
		out := map[string]any{}
		for k, x := range av {
			y, ok := bv[k]
			if !ok {
				continue
			}
			if s := stable(x, y); s != nil {
				out[k] = s
			}
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok || len(bv) != len(av) {
			return nil
		}
		out := make([]any, len(av))
		for i := range av {
			out[i] = orEmpty(stable(av[i], bv[i]))
		}
		return out
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return nil
		}
		x, err1 := strconv.ParseFloat(string(av), 64)
		y, err2 := strconv.ParseFloat(string(bn), 64)
		if err1 != nil || err2 != nil {
			if av == bn {
				return a
			}
			return nil
		}
		if strings.ContainsAny(string(av), ".eE") {
			if math.Abs(x-y) <= math.Max(1e-6*math.Max(math.Abs(x), math.Abs(y)), 1e-9) {
				return a
			}
			return nil
		}
		if x == y {
			return a
		}
		return nil
	default:
		if a == b {
			return a
		}
		return nil
	}
}

// informative keys of a return fingerprint (§4.5 "record shape by kind").
var informativeKeys = []string{"v", "len", "shape", "dtype", "s", "a", "h", "r", "items", "keys", "cols", "dtypes", "idx", "exc"}

// shapeRecord reduces a folded record to its expected form.
func shapeRecord(m map[string]any) map[string]any {
	args := restrictArgs(m["args"])
	switch m["kind"] {
	case "subclass":
		return map[string]any{"kind": "subclass"}
	case "init":
		return map[string]any{"kind": "init", "args": args}
	}
	if ret, ok := m["ret"].(map[string]any); ok {
		for _, k := range informativeKeys {
			if _, ok := ret[k]; ok {
				return map[string]any{"kind": "call", "ret": ret}
			}
		}
	}
	return map[string]any{"kind": "call", "args": args}
}

// restrictArgs keeps only the explicitly passed arguments.
func restrictArgs(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return map[string]any{}
	}
	ex, ok := m["__explicit__"].([]any)
	if !ok {
		if _, fallback := m["*"]; fallback {
			return m
		}
		return map[string]any{}
	}
	out := map[string]any{}
	for _, n := range ex {
		if s, ok := n.(string); ok {
			if x, ok := m[s]; ok {
				out[s] = x
			}
		}
	}
	return out
}
