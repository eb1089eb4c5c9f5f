package evalharness

import (
	"embed"
	"encoding/json"
)

// The Python parts of the harness: the stock and recording
// monitors, the fingerprint helpers, the call-record check and the runner.
//
//go:embed py/*.py
var pyFS embed.FS

func pyFile(name string) string {
	b, err := pyFS.ReadFile("py/" + name)
	if err != nil {
		panic("evalharness: missing embedded py/" + name)
	}
	return string(b)
}

// pyStr returns a Python string literal for s (JSON string syntax is valid
// Python for every string once U+2028/2029 are escaped, which encoding/json does).
func pyStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
