package main

import (
	"encoding/json"
	"fmt"
	"io"
)

func fmtSprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// writeJSON prints v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
