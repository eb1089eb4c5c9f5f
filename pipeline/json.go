package pipeline

import (
	"bytes"
	"encoding/json"
	"os"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// writeIfChanged writes bundles to path unless the file already holds
// exactly these records, so that its modification time tells whether the
// index is stale.
func writeIfChanged(path string, bs []bundles.Bundle) error {
	var buf bytes.Buffer
	for i := range bs {
		if err := jsonl.Encode(&buf, &bs[i]); err != nil {
			return err
		}
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, buf.Bytes()) {
		return nil
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
}

func readJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}
