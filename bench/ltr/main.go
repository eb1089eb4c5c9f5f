// Command ltr fits the linear ranker of index/ranker.go on query sets and
// checks it by leave-one-set-out cross-validation: for each set, the
// ranker fitted on the other sets ranks that set's queries, and hit@1 /
// hit@5 / MRR are printed beside those of the index's current ranking
// (Search, in sample for the sets its weights were fitted on). The
// fit is a pairwise logistic loss (RankNet: Burges et al., "Learning to
// rank using gradient descent", ICML 2005) over the target and each other
// candidate of a query, L2-regularised, minimised with L-BFGS (gonum).
//
//	go run ./bench/ltr --index DIR [--tasks tasks.jsonl] [--cache F] [SET.jsonl ...]
//
// Without SET arguments every bench/queries/nl*.jsonl is used. The last
// line prints the weights fitted on all sets as a Go literal.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/novelapi/novelapi/bench/internal/querysets"
	"github.com/novelapi/novelapi/index"
)

// query is one query's candidates as the ranker sees them.
type query struct {
	Set      string      `json:"set"`
	Target   int         `json:"target"`   // index in X, -1 when not among the candidates
	Baseline int         `json:"baseline"` // rank under the index's current ranking (Search), 0 beyond MaxK
	Exact    []bool      `json:"exact"`
	X        [][]float64 `json:"x"`
}

func main() {
	dir := flag.String("index", "", "index directory (required)")
	tasks := flag.String("tasks", "", "tasks.jsonl to use as one more set")
	cache := flag.String("cache", "", "read the candidates from this file when it exists, else write them there")
	l2 := flag.Float64("l2", 1e-3, "L2 regularisation weight")
	without := flag.String("without", "", "comma-separated features to leave out")
	fitOnly := flag.String("fit-only", "", "comma-separated features to fit; the others keep the index's current weights")
	flag.StringVar(&lossName, "loss", "pairwise", "pairwise (RankNet) or softmax (ListNet top-one)")
	flag.IntVar(&trainDepth, "depth", 50, "fit on each query's first N fused candidates (all are ranked)")
	flag.Parse()
	if *fitOnly != "" {
		free = map[int]bool{}
		for _, f := range strings.Split(*fitOnly, ",") {
			i := slices.Index(index.FeatureNames[:], f)
			if i < 0 {
				fmt.Fprintf(os.Stderr, "bench/ltr: --fit-only: no feature %q (features: %s)\n", f, strings.Join(index.FeatureNames[:], ", "))
				os.Exit(2)
			}
			free[i] = true
		}
	}
	if err := run(*dir, *tasks, *cache, *l2, *without, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "bench/ltr:", err)
		os.Exit(1)
	}
}

func run(dir, tasks, cache string, l2 float64, without string, sets []string) error {
	qs, err := loadCache(cache)
	if err != nil {
		return err
	}
	if qs == nil {
		if qs, err = collect(dir, tasks, sets); err != nil {
			return err
		}
		if cache != "" {
			data, err := json.Marshal(qs)
			if err != nil {
				return err
			}
			if err := os.WriteFile(cache, data, 0o644); err != nil {
				return err
			}
		}
	}
	mask := make([]bool, len(index.FeatureNames))
	for _, f := range strings.Split(without, ",") {
		for i, n := range index.FeatureNames {
			if n == f {
				mask[i] = true
			}
		}
	}
	for _, q := range qs {
		for _, x := range q.X {
			for i := range x {
				if mask[i] {
					x[i] = 0
				}
			}
		}
	}
	var setNames []string
	bySet := map[string][]query{}
	for _, q := range qs {
		if bySet[q.Set] == nil {
			setNames = append(setNames, q.Set)
		}
		bySet[q.Set] = append(bySet[q.Set], q)
	}
	fmt.Printf("%-22s %4s | %-20s | %-20s\n", "held-out set", "n", "current h@1 h@5 MRR", "learned h@1 h@5 MRR")
	var poolB, poolL [3]float64
	poolN := 0
	for _, s := range setNames {
		var train []query
		for _, t := range setNames {
			if t != s {
				train = append(train, bySet[t]...)
			}
		}
		w := fit(train, l2)
		b, l := score(bySet[s], nil), score(bySet[s], w)
		fmt.Printf("%-22s %4d | %.3f %.3f %.3f    | %.3f %.3f %.3f\n", s, len(bySet[s]), b[0], b[1], b[2], l[0], l[1], l[2])
		if !strings.Contains(s, "tasks") && s != "nl.jsonl" {
			n := float64(len(bySet[s]))
			for i := range 3 {
				poolB[i] += b[i] * n
				poolL[i] += l[i] * n
			}
			poolN += len(bySet[s])
		}
	}
	if poolN > 0 {
		n := float64(poolN)
		fmt.Printf("%-22s %4d | %.3f %.3f %.3f    | %.3f %.3f %.3f\n", "pooled held-out", poolN, poolB[0]/n, poolB[1]/n, poolB[2]/n, poolL[0]/n, poolL[1]/n, poolL[2]/n)
	}
	w := fit(qs, l2)
	var parts []string
	for i, v := range w {
		parts = append(parts, fmt.Sprintf("%.4g /* %s */", v, index.FeatureNames[i]))
	}
	fmt.Printf("weights on all sets: []float64{%s}\n", strings.Join(parts, ", "))
	return nil
}

func loadCache(path string) ([]query, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var qs []query
	return qs, json.Unmarshal(data, &qs)
}

// collect runs every query of the sets through the index.
func collect(dir, tasks string, sets []string) ([]query, error) {
	if dir == "" {
		return nil, fmt.Errorf("--index is required")
	}
	sets, err := querysets.Files(sets, tasks)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(dir, index.OpenOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	ctx := context.Background()
	var out []query
	for _, set := range sets {
		eqs, err := index.LoadEvalQueries(set)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(set)
		fmt.Fprintf(os.Stderr, "%s: %d queries\n", name, len(eqs))
		for _, eq := range eqs {
			target := eq.APIName
			if b, ok := ix.Bundle(eq.APIName); ok {
				target = b.APIName
			}
			text := eq.Query
			if len(text) > index.MaxQueryBytes {
				text = text[:index.MaxQueryBytes]
			}
			cs, err := ix.RankFeatures(ctx, index.Query{Text: text, K: index.MaxK})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", set, err)
			}
			hits, err := ix.Search(ctx, index.Query{Text: text, K: index.MaxK})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", set, err)
			}
			q := query{Set: name, Target: -1}
			for _, h := range hits {
				if h.APIName == target {
					q.Baseline = h.Rank
					break
				}
			}
			for i, c := range cs {
				if c.APIName == target && q.Target < 0 {
					q.Target = i
				}
				q.Exact = append(q.Exact, c.Exact)
				q.X = append(q.X, c.Features)
			}
			out = append(out, q)
		}
	}
	return out, nil
}

// order returns the candidate indexes of q as the ranker orders them: the
// exact ones first in fused order, then the others by w·x (stable).
func order(q query, w []float64) []int {
	idx := make([]int, len(q.X))
	s := make([]float64, len(q.X))
	for i, x := range q.X {
		idx[i] = i
		if q.Exact[i] {
			s[i] = math.Inf(1)
			continue
		}
		for j, v := range w {
			s[i] += v * x[j]
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	return idx
}

// score returns hit@1, hit@5 and MRR of qs: the current ranks when w
// is nil, else those of the learned order (a target beyond the candidates
// keeps its current rank when that is past them).
func score(qs []query, w []float64) [3]float64 {
	var out [3]float64
	for _, q := range qs {
		r := q.Baseline
		if w != nil {
			r = 0
			if q.Target >= 0 {
				for pos, i := range order(q, w) {
					if i == q.Target {
						r = pos + 1
						break
					}
				}
			} else if q.Baseline > len(q.X) {
				r = q.Baseline
			}
		}
		if r == 1 {
			out[0]++
		}
		if r >= 1 && r <= 5 {
			out[1]++
		}
		if r >= 1 {
			out[2] += 1 / float64(r)
		}
	}
	for i := range out {
		out[i] /= float64(len(qs))
	}
	return out
}

// trainDepth is how many of a query's fused candidates the fit sees: the
// far tail is easy negatives that outnumber the hard ones.
var trainDepth = 50

// fit minimises the mean over queries of the mean pairwise logistic loss
// of the target against each other non-exact candidate among the first
// trainDepth, plus l2·|w|².
func fit(qs []query, l2 float64) []float64 {
	var train []query
	for _, q := range qs {
		if q.Target >= 0 && q.Target < trainDepth && !q.Exact[q.Target] && len(q.X) > 1 {
			n := min(len(q.X), trainDepth)
			q.X, q.Exact = q.X[:n], q.Exact[:n]
			train = append(train, q)
		}
	}
	d := len(index.FeatureNames)
	// With --fit-only, the optimiser sees the free coordinates alone; the
	// others stay at the index's weights (and out of the L2 term).
	base := index.RankerWeights()
	var freeIdx []int
	for i := range d {
		if free == nil || free[i] {
			freeIdx = append(freeIdx, i)
		}
	}
	full := func(v []float64) []float64 {
		w := make([]float64, d)
		if free != nil {
			copy(w, base)
		}
		for k, i := range freeIdx {
			w[i] = v[k]
		}
		return w
	}
	reg := func(w []float64) []float64 { // w without the fixed coordinates, for the L2 term
		if free == nil {
			return w
		}
		r := make([]float64, d)
		for _, i := range freeIdx {
			r[i] = w[i]
		}
		return r
	}
	p := optimize.Problem{
		Func: func(v []float64) float64 {
			w := full(v)
			f, _ := lossGrad(train, w, 0, false)
			return f + l2*floats.Dot(reg(w), reg(w))
		},
		Grad: func(g, v []float64) {
			w := full(v)
			_, gr := lossGrad(train, w, 0, true)
			r := reg(w)
			for k, i := range freeIdx {
				g[k] = gr[i] + 2*l2*r[i]
			}
		},
	}
	res, err := optimize.Minimize(p, make([]float64, len(freeIdx)), nil, &optimize.LBFGS{})
	if err != nil && res == nil {
		panic(err)
	}
	return full(res.X)
}

// free holds the features --fit-only fits (nil: all).
var free map[int]bool

var lossName = "pairwise"

func lossGrad(qs []query, w []float64, l2 float64, wantGrad bool) (float64, []float64) {
	d := len(w)
	var g []float64
	if wantGrad {
		g = make([]float64, d)
	}
	loss := 0.0
	diff := make([]float64, d)
	for _, q := range qs {
		if lossName == "softmax" {
			// −ln softmax(s)_target over the non-exact candidates (Cao et
			// al., "Learning to rank: from pairwise approach to listwise
			// approach", ICML 2007, top-one probability).
			s := make([]float64, len(q.X))
			top := math.Inf(-1)
			for i, x := range q.X {
				if q.Exact[i] {
					continue
				}
				for j := range d {
					s[i] += w[j] * x[j]
				}
				top = max(top, s[i])
			}
			z := 0.0
			for i := range q.X {
				if !q.Exact[i] {
					z += math.Exp(s[i] - top)
				}
			}
			loss += -(s[q.Target] - top) + math.Log(z)
			if wantGrad {
				for i, x := range q.X {
					if q.Exact[i] {
						continue
					}
					p := math.Exp(s[i]-top) / z
					for j := range d {
						g[j] += p * x[j]
					}
				}
				for j := range d {
					g[j] -= q.X[q.Target][j]
				}
			}
			continue
		}
		xt := q.X[q.Target]
		n := 0
		for i := range q.X {
			if i != q.Target && !q.Exact[i] {
				n++
			}
		}
		for i, x := range q.X {
			if i == q.Target || q.Exact[i] {
				continue
			}
			m := 0.0
			for j := range d {
				diff[j] = xt[j] - x[j]
				m += w[j] * diff[j]
			}
			// log(1+exp(-m)), stably
			if m > 0 {
				loss += math.Log1p(math.Exp(-m)) / float64(n)
			} else {
				loss += (-m + math.Log1p(math.Exp(m))) / float64(n)
			}
			if wantGrad {
				s := 1 / (1 + math.Exp(m)) // σ(-m)
				for j := range d {
					g[j] -= s * diff[j] / float64(n)
				}
			}
		}
	}
	nq := float64(len(qs))
	loss /= nq
	for j := range d {
		loss += l2 * w[j] * w[j]
		if wantGrad {
			g[j] = g[j]/nq + 2*l2*w[j]
		}
	}
	return loss, g
}
