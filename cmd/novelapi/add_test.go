package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddRmCmd_BadInput: what a user sees for a path that is not a
// library and for removing what was never added; nothing is left behind.
func TestAddRmCmd_BadInput(t *testing.T) {
	home := t.TempDir()
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"EmptyDir", []string{"add", t.TempDir(), "--env", "trixie-sci"}, "not a Python project: it has no pyproject.toml, setup.cfg, setup.py or *.dist-info"},
		{"TextFile", []string{"add", notes}, "a file must be a wheel (*.whl) or an sdist (*.tar.gz, *.zip)"},
		{"Missing", []string{"add", filepath.Join(home, "nope")}, "no such file or directory"},
		{"RmUnknown", []string{"rm", "boltons"}, "no private library boltons was added (added: none)"},
		{"NoArg", []string{"add"}, "accepts 1 arg(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runArgs(t, home, tt.args...)
			if code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("novelapi %v: exit %d, stderr %q; want %q", tt.args, code, stderr, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(home, "private", "registry.json")); err == nil {
		t.Errorf("a failed add wrote the registry")
	}
}
