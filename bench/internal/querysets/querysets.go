// Package querysets lists the query sets the retrieval benchmarks
// (bench/retrieval, bench/ltr) run.
package querysets

import "path/filepath"

// Default is the glob of the natural-language query sets, relative to the
// repository root (bench/queries/README-heldout*.md say how they were made).
const Default = "bench/queries/nl*.jsonl"

// Files returns sets, or every file matching Default when sets is empty,
// followed by tasks (a task pool, queried by description + context) when
// it is not "".
func Files(sets []string, tasks string) ([]string, error) {
	if len(sets) == 0 {
		var err error
		if sets, err = filepath.Glob(Default); err != nil {
			return nil, err
		}
	}
	if tasks != "" {
		sets = append(sets, tasks)
	}
	return sets, nil
}
