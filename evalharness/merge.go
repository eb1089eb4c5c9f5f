package evalharness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/pool"
)

// ErrShardMismatch reports shard directories that cannot be merged: a
// different evaluation, a missing or duplicated shard, a result in the wrong
// shard, or two different verdicts for one task.
var ErrShardMismatch = errors.New("evalharness: inconsistent shards")

// Merge joins the results of shard directories (each written by [Run] with
// a Shard, possibly on different machines) into outDir: results.jsonl in
// prediction order, eval_meta.json without a shard, and a recomputed
// summary.json, all written atomically, holding outDir's lock as [Run]
// does ([ErrRunInUse]).
//
// Consistency checks (any failure wraps ErrShardMismatch): every directory
// has eval_meta.json with the same evaluator version, failure-label mode,
// pass@5 mode and condition; sharded directories agree on the shard count,
// no shard appears twice, and all shards 0..n-1 are present; each result
// sits in the shard its index belongs to; a task found in several
// directories (a shard run twice) must have the same verdict there, and is
// kept once. Unsharded directories (shard "") are plain unions.
func Merge(outDir string, shardDirs ...string) (Summary, error) {
	if len(shardDirs) == 0 {
		return Summary{}, errors.New("eval merge: no shard directories")
	}
	var base EvalMeta
	count := -1
	seenShard := map[int]string{}
	type key struct{ cond, id string }
	byKey := map[key]pool.TaskResult{}
	from := map[key]string{}
	var shards []string
	for i, dir := range shardDirs {
		meta, err := ReadMeta(dir)
		if err != nil {
			return Summary{}, fmt.Errorf("eval merge: %w", err)
		}
		sh, err := ParseShard(meta.Shard)
		if err != nil {
			return Summary{}, fmt.Errorf("%w: %s: %v", ErrShardMismatch, filepath.Join(dir, pool.MetaFile), err)
		}
		if i == 0 {
			base = meta
			count = sh.Count
		} else if meta.EvaluatorVersion != base.EvaluatorVersion || meta.ClassifyFailures != base.ClassifyFailures ||
			meta.PassAt5 != base.PassAt5 || meta.Condition != base.Condition {
			return Summary{}, fmt.Errorf("%w: %s (evaluator %s, labels %v, pass@5 %v, condition %q) differs from %s (%s, %v, %v, %q)",
				ErrShardMismatch, dir, meta.EvaluatorVersion, meta.ClassifyFailures, meta.PassAt5, meta.Condition,
				shardDirs[0], base.EvaluatorVersion, base.ClassifyFailures, base.PassAt5, base.Condition)
		} else if sh.Count != count {
			return Summary{}, fmt.Errorf("%w: %s is shard %q but %s is shard %q", ErrShardMismatch, dir, meta.Shard, shardDirs[0], base.Shard)
		}
		if sh.Count > 1 {
			if prev, dup := seenShard[sh.Index]; dup {
				return Summary{}, fmt.Errorf("%w: shard %s appears in both %s and %s", ErrShardMismatch, sh, prev, dir)
			}
			seenShard[sh.Index] = dir
			shards = append(shards, sh.String())
		}
		results, _, err := pool.ReadResults(filepath.Join(dir, pool.ResultsFile))
		if err != nil {
			return Summary{}, err
		}
		for _, r := range results {
			if !sh.Has(r.Index) {
				return Summary{}, fmt.Errorf("%w: %s: task %s has index %d, which is not in shard %s", ErrShardMismatch, dir, r.TaskID, r.Index, sh)
			}
			k := key{r.Condition, r.TaskID}
			if prev, dup := byKey[k]; dup {
				if prev.Passed != r.Passed || prev.Label != r.Label || prev.NPassed != r.NPassed || prev.NSamples != r.NSamples {
					return Summary{}, fmt.Errorf("%w: task %s has different verdicts in %s and %s", ErrShardMismatch, r.TaskID, from[k], dir)
				}
				continue
			}
			byKey[k], from[k] = r, dir
		}
	}
	if count > 1 {
		var missing []string
		for i := range count {
			if _, ok := seenShard[i]; !ok {
				missing = append(missing, Shard{Index: i, Count: count}.String())
			}
		}
		if len(missing) > 0 {
			return Summary{}, fmt.Errorf("%w: missing shards %s", ErrShardMismatch, abbrev(missing, 8))
		}
	}
	results := make([]pool.TaskResult, 0, len(byKey))
	for _, r := range byKey {
		results = append(results, r)
	}
	slices.SortFunc(results, func(a, b pool.TaskResult) int {
		if a.Index != b.Index {
			return a.Index - b.Index
		}
		if a.Condition != b.Condition {
			if a.Condition < b.Condition {
				return -1
			}
			return 1
		}
		if a.TaskID < b.TaskID {
			return -1
		}
		return 1
	})
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return Summary{}, err
	}
	unlock, err := lockRun(outDir)
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	if err := writeResults(filepath.Join(outDir, pool.ResultsFile), results); err != nil {
		return Summary{}, err
	}
	meta := base
	meta.Shard = ""
	if err := atomicfile.WriteJSON(filepath.Join(outDir, pool.MetaFile), meta); err != nil {
		return Summary{}, err
	}
	slices.Sort(shards)
	return finish(outDir, nil, meta.EvaluatorVersion, shards)
}
