package importers

import (
	"fmt"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// readRecords reads the JSONL file at path as records of type T. A file
// with no records is an error naming it: an import of nothing is almost
// always a wrong path or an empty download, and would otherwise write an
// empty pool and exit 0.
func readRecords[T any](path string) ([]T, error) {
	recs, _, err := jsonl.Read[T](path, jsonl.ReadOptions{})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no records (empty file)", path)
	}
	return recs, nil
}
