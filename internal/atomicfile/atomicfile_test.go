package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A fresh data directory has none of the folders outputs go to: the first
// write makes them.
func TestWriteMakesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "candidates", "numpy.jsonl")
	if err := Write(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "{}\n" {
		t.Fatalf("read back %q, %v", got, err)
	}
}

// A failed write leaves the old contents and no temporary file.
func TestWriteFuncFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := Write(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFunc(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Fatalf("after a failed write: %q, want old", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want 1 (no temporary file left)", len(ents))
	}
}
