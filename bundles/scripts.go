package bundles

import (
	"embed"
	"fmt"
)

// scripts holds the Python programs this package runs inside sandboxes
// (embedded Python lives in py/, never in Go string literals).
//
//go:embed py/*.py
var scripts embed.FS

// script returns the embedded py/name; a missing script is a build bug.
func script(name string) []byte {
	data, err := scripts.ReadFile("py/" + name)
	if err != nil {
		panic(fmt.Sprintf("bundles: embedded script %s: %v", name, err))
	}
	return data
}
