package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// An EvalQuery is one retrieval-evaluation item: a query and the API it
// should find. A queries file has {"query", "api_name"} lines (optionally
// "library", "intent", "id"); a tasks file (docs/protocol.md §1.3)
// has task_id, api_name, library, domain, description and context_code,
// and its query is f"{description}\n{context_code}" as in the protocol's
// retrieval (§6).
type EvalQuery struct {
	ID      string `json:"id,omitempty"`
	Query   string `json:"query"`
	APIName string `json:"api_name"`
	Library string `json:"library,omitempty"`
	Domain  string `json:"domain,omitempty"`
	Intent  string `json:"intent,omitempty"`

	TaskID      string `json:"task_id,omitempty"`
	Description string `json:"description,omitempty"`
	ContextCode string `json:"context_code,omitempty"`
}

// LoadEvalQueries reads a queries or tasks JSONL file. A malformed line,
// or one with neither query nor description, or without api_name, fails
// with an error naming path and line; so does a file with no records.
func LoadEvalQueries(path string) ([]EvalQuery, error) {
	var out []EvalQuery
	var st jsonl.ReadStats
	for q, err := range jsonl.ScanStats[EvalQuery](path, &st) {
		line := st.Line
		if err != nil {
			return nil, err
		}
		if q.Query == "" && q.Description != "" {
			q.Query = q.Description + "\n" + q.ContextCode
		}
		if q.ID == "" {
			q.ID = q.TaskID
		}
		if strings.TrimSpace(q.Query) == "" || q.APIName == "" {
			return nil, fmt.Errorf("%s:%d: needs api_name and either query or description", path, line)
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries (an empty file?)", path)
	}
	return out, nil
}

// EvalConfig configures [Evaluate]. The zero value evaluates every
// retriever, and the paper baseline under every non-none condition.
type EvalConfig struct {
	Retrievers []Retriever           // nil = Retrievers
	Conditions []bundles.Condition   // paper conditions; nil = all 11 non-none
	Progress   func(done, total int) // nil = none
}

// SharedHitConditions are the conditions of the protocol's shared-hit
// subset: the tasks whose target is in the paper retriever's top five
// under every one of them (docs/protocol.md §6; 960 of 1,670 tasks
// on the paper's primary instance, the "57%" usually quoted).
var SharedHitConditions = []bundles.Condition{bundles.CondS, bundles.CondSM, bundles.CondSE, bundles.CondFull}

// PaperShared is the Condition of the paper rows computed over
// SharedHitConditions when [Evaluate] ran all four: a query's rank is its
// worst rank among them (0 when any missed it), so HitAt5 is the share of
// queries in the shared-hit subset, HitAt1 the share ranked first under
// all four, and MRR the mean reciprocal of the worst rank.
const PaperShared = "shared"

// An EvalRow holds the figures of one retriever (and paper condition) over
// the queries of one library ("" = all).
type EvalRow struct {
	Retriever Retriever `json:"retriever"`
	Condition string    `json:"condition,omitempty"` // paper only: a condition or PaperShared
	Library   string    `json:"library"`             // "" = all libraries
	N         int       `json:"n"`
	HitAt1    float64   `json:"hit_at_1"`
	HitAt5    float64   `json:"hit_at_5"`
	MRR       float64   `json:"mrr"`
}

// An EvalReport is the outcome of [Evaluate].
type EvalReport struct {
	// Ranking is the RankingVersion that produced the figures; a report
	// of another version is stale (novelapi up re-evaluates).
	Ranking string `json:"ranking,omitempty"`
	Queries int    `json:"queries"`
	// Missing counts queries whose target API is not in the index; they
	// count as misses.
	Missing []string  `json:"missing,omitempty"`
	Rows    []EvalRow `json:"rows"`
}

// Row returns the row of retriever r, condition cond ("" unless paper) and
// library lib ("" = all), and whether there is one.
func (r *EvalReport) Row(ret Retriever, cond, lib string) (EvalRow, bool) {
	for _, row := range r.Rows {
		if row.Retriever == ret && row.Condition == cond && row.Library == lib {
			return row, true
		}
	}
	return EvalRow{}, false
}

// truncateUTF8 cuts s to at most n bytes at a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Evaluate runs every query through each retriever and reports hit@1,
// hit@5 and MRR of the target API per retriever (per condition for paper)
// and per library. Queries carry no filters (as in the protocol), except
// that the paper pool is the query's domain when it has one (§6). For
// hybrid, bm25 and vector a rank is the API's position among up to MaxK
// hits (MRR is 0 beyond); for paper it is the protocol's target_rank, the
// rank of the API's first chunk in the full ranking. Queries longer than
// MaxQueryBytes are cut there (the protocol's encoder also truncates).
// Retrievers that cannot run (vector off) are skipped.
func Evaluate(ctx context.Context, ix *Index, qs []EvalQuery, cfg EvalConfig) (*EvalReport, error) {
	rets := cfg.Retrievers
	if rets == nil {
		rets = Retrievers
	}
	conds := cfg.Conditions
	if conds == nil {
		for _, c := range bundles.AllConditions() {
			if c != bundles.CondNone {
				conds = append(conds, c)
			}
		}
	}
	rep := &EvalReport{Ranking: RankingVersion, Queries: len(qs)}
	// Resolve targets to canonical names and libraries.
	targets := make([]string, len(qs))
	libs := make([]string, len(qs))
	for i, q := range qs {
		targets[i], libs[i] = q.APIName, q.Library
		if b, ok := ix.Bundle(q.APIName); ok {
			targets[i] = b.APIName
			if libs[i] == "" {
				libs[i] = b.Library
			}
		} else {
			rep.Missing = append(rep.Missing, q.APIName)
			if libs[i] == "" {
				libs[i] = bundles.TopLevel(q.APIName)
			}
		}
	}
	type cell struct {
		ret  Retriever
		cond string
	}
	var cells []cell
	for _, r := range rets {
		if (r == Vector || r == Paper) && !ix.VectorEnabled() {
			continue
		}
		if r == Paper {
			for _, c := range conds {
				cells = append(cells, cell{r, string(c)})
			}
			continue
		}
		cells = append(cells, cell{r, ""})
	}
	libSet := slices.Compact(slices.Sorted(slices.Values(libs)))
	// addRows appends the rows of one cell: all libraries, then each.
	addRows := func(ret Retriever, cond string, ranks []int) {
		for _, lib := range append([]string{""}, libSet...) {
			row := EvalRow{Retriever: ret, Condition: cond, Library: lib}
			for i := range qs {
				if lib != "" && libs[i] != lib {
					continue
				}
				row.N++
				if r := ranks[i]; r > 0 {
					if r == 1 {
						row.HitAt1++
					}
					if r <= 5 {
						row.HitAt5++
					}
					row.MRR += 1 / float64(r)
				}
			}
			if row.N > 0 {
				n := float64(row.N)
				row.HitAt1, row.HitAt5, row.MRR = row.HitAt1/n, row.HitAt5/n, row.MRR/n
			}
			rep.Rows = append(rep.Rows, row)
		}
	}
	byCell := map[cell][]int{}
	total, done := len(cells)*len(qs), 0
	for _, c := range cells {
		ranks := make([]int, len(qs))
		for i, q := range qs {
			if err := ctx.Err(); err != nil {
				return nil, context.Cause(ctx)
			}
			text := truncateUTF8(q.Query, MaxQueryBytes)
			var err error
			if c.ret == Paper {
				ranks[i], err = ix.paperTargetRank(ctx, Query{Text: text, Retriever: Paper, Condition: bundles.Condition(c.cond), Domain: q.Domain}, targets[i])
			} else {
				var hits []Hit
				hits, err = ix.Search(ctx, Query{Text: text, Retriever: c.ret, K: MaxK})
				for _, h := range hits {
					if h.APIName == targets[i] {
						ranks[i] = h.Rank
						break
					}
				}
			}
			if err != nil {
				return nil, fmt.Errorf("query %d (%s): %w", i+1, q.APIName, err)
			}
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, total)
			}
		}
		byCell[c] = ranks
		addRows(c.ret, c.cond, ranks)
	}
	// The protocol's shared-hit subset (§6): worst rank over its four
	// conditions, when all four were run.
	var worst []int
	for i, cond := range SharedHitConditions {
		ranks, ok := byCell[cell{Paper, string(cond)}]
		if !ok {
			worst = nil
			break
		}
		if i == 0 {
			worst = slices.Clone(ranks)
			continue
		}
		for j, r := range ranks {
			if r == 0 || worst[j] == 0 {
				worst[j] = 0
			} else {
				worst[j] = max(worst[j], r)
			}
		}
	}
	if worst != nil {
		addRows(Paper, PaperShared, worst)
	}
	return rep, nil
}
