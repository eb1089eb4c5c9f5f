package bundles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/novelapi/novelapi/sandbox"
)

// A TestTree is a folder of a library's own test modules that the library
// does not install: a private library's tests/ (docs/private.md §3).
// Stage 2 mines it as it mines an installed test suite, before it: each
// batch gets a copy of its Python files under /job, and the examples cut
// from them name their files by Label. Read-only once read.
type TestTree struct {
	Dir   string // on the host
	Label string // how origins name Dir ("/src/toolz/tests", "/src/toolz@3f2a.../tests")
	files []sandbox.File
	key   string
}

// Bounds of [ReadTestTree]: a module over MaxTestModule bytes is left out
// (the miner reads none bigger), and so is everything past MaxTestTree
// bytes in all.
const (
	MaxTestModule = 400_000
	MaxTestTree   = 32 << 20
)

// testTreeJob is where a TestTree's files are in the sandbox, under
// sandbox.JobDir.
const testTreeJob = "srctests"

// ReadTestTree reads the Python files under dir (conftest.py and helpers
// as well as test modules; hidden folders and __pycache__ left out), in
// path order, as a [TestTree] whose origins say label for dir. A folder
// without Python files gives nil; a missing one is an error.
func ReadTestTree(dir, label string) (*TestTree, error) {
	t := &TestTree{Dir: dir, Label: strings.TrimSuffix(label, "/")}
	h := sha256.New()
	total := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != dir && (strings.HasPrefix(e.Name(), ".") || e.Name() == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".py") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(data) > MaxTestModule || total+len(data) > MaxTestTree {
			return nil
		}
		total += len(data)
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
		t.files = append(t.files, sandbox.File{Path: testTreeJob + "/" + rel, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read tests %s: %w", dir, err)
	}
	if len(t.files) == 0 {
		return nil, nil
	}
	t.key = t.Label + "@sha256:" + hex.EncodeToString(h.Sum(nil))
	return t, nil
}

// Modules reports how many Python files t has; 0 for nil.
func (t *TestTree) Modules() int {
	if t == nil {
		return 0
	}
	return len(t.files)
}

// Key names t for stamps: its label and a digest of its files; "" for nil.
func (t *TestTree) Key() string {
	if t == nil {
		return ""
	}
	return t.key
}

// origin returns the file an example's origin names in the sandbox as t
// names it: /job/srctests/REL → Label/REL; other files unchanged.
func (t *TestTree) origin(file string) string {
	if t == nil {
		return file
	}
	if rel, ok := strings.CutPrefix(file, sandbox.JobDir+"/"+testTreeJob+"/"); ok {
		return t.Label + "/" + rel
	}
	return file
}
