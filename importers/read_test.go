package importers_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/importers"
)

// An empty input file is an error naming the file, for every importer;
// nothing is written.
func TestImport_EmptyFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte("\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for name, imp := range map[string]func() (importers.Stats, error){
		"codeupdatearena": func() (importers.Stats, error) {
			return importers.ImportCodeUpdateArena(empty, out, importers.ArenaConfig{})
		},
		"humaneval": func() (importers.Stats, error) {
			return importers.ImportHumanEval(empty, out, importers.HumanEvalConfig{})
		},
		"pricoder": func() (importers.Stats, error) {
			return importers.ImportPriCoder(out, importers.PriCoderConfig{TasksPath: empty, DocsPath: empty, Library: "x"})
		},
	} {
		_, err := imp()
		if err == nil || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "no records") {
			t.Errorf("%s: err = %v, want an error naming %s with no records", name, err, empty)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output dir written for empty inputs: %v", err)
	}
}
