package main

import (
	"encoding/json"
	"errors"
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

// writeJSONResult prints v as [writeJSON] does when err is nil. Otherwise
// it prints one object with "error" (err's message) and "exit_code" (the
// code run exits with) beside v's fields: what the command had done when
// it failed (README.md, "--json"). A nil v gives just the two; a v that is
// not an object goes under "result".
func writeJSONResult(w io.Writer, v any, err error) error {
	if err == nil {
		return writeJSON(w, v)
	}
	out := map[string]any{}
	if v != nil {
		b, merr := json.Marshal(v)
		if merr != nil {
			return merr
		}
		if string(b) != "null" {
			if json.Unmarshal(b, &out) != nil {
				out = map[string]any{"result": json.RawMessage(b)}
			}
		}
	}
	out["error"] = err.Error()
	out["exit_code"] = exitCode(err)
	return writeJSON(w, out)
}

// exitCode is the code run exits with for err: 0 for nil, 2 for a usage
// error, 3 for a partial success, else 1.
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case isUsage(err):
		return 2
	}
	if _, ok := errors.AsType[*partialError](err); ok {
		return 3
	}
	return 1
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
