package bundles

import (
	"embed"
	"errors"
	"io/fs"
	"strings"
)

// bootstraps holds the per-library bootstrap programs, one file per
// top-level import name (docs/environments.md §8).
//
//go:embed bootstrap/*.py
var bootstraps embed.FS

// Bootstrap returns the Python lines that must run before any module of
// the library whose top-level import name starts apiOrImport ("django",
// "django.db.models.Q") can be imported, or "" when it needs none. The
// lines are idempotent: a script may run them more than once. Discovery,
// extraction, task building and evaluation each run them first in every
// sandbox run that imports the library (docs/environments.md §8).
func Bootstrap(apiOrImport string) string { return embedded(apiOrImport, ".py") }

// ExampleNames returns the Python statements that bind the names the
// documentation of the library whose top-level import name starts
// apiOrImport uses in its examples without binding them (django's
// request), or "" when it has none. Extraction gives an example that uses
// one unbound, and gets it from nowhere else, the statement that binds it
// (docs/protocol.md §7 Stage 2, prelude); no other stage runs them.
func ExampleNames(apiOrImport string) string { return embedded(apiOrImport, ".names.py") }

// embedded returns the embedded file bootstrap/TOP+suffix, TOP the
// top-level import name apiOrImport starts with, without its opening
// comment; "" when there is no such file.
func embedded(apiOrImport, suffix string) string {
	top, _, _ := strings.Cut(apiOrImport, ".")
	if top == "" || strings.ContainsAny(top, `/\`) {
		return ""
	}
	data, err := bootstraps.ReadFile("bootstrap/" + top + suffix)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		panic("bundles: embedded bootstrap " + top + ": " + err.Error())
	}
	// The file's opening comment says why the library needs it; the
	// lines themselves are what scripts and served examples carry.
	lines := strings.SplitAfter(string(data), "\n")
	for len(lines) > 0 && (strings.HasPrefix(lines[0], "#") || strings.TrimSpace(lines[0]) == "") {
		lines = lines[1:]
	}
	return strings.Join(lines, "")
}
