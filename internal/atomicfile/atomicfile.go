// Package atomicfile writes files so that readers see the old contents or
// the new ones, never a part: the data goes to a temporary file in the same
// directory, which is fsynced and renamed over the target.
package atomicfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes data to path with [WriteFunc].
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc creates path's directory when missing, lets write fill a
// temporary file in it (buffered), fsyncs the file, gives it mode perm and
// renames it over path (and fsyncs the directory), so readers see the old contents or the complete
// new ones. When write or any step fails, the temporary file is removed,
// path is untouched and the error names path.
func WriteFunc(path string, perm os.FileMode, write func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	SyncDir(dir)
	return nil
}

// WriteJSON writes v to path as JSON indented by two spaces with a final
// newline, with [Write] and mode 0644.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return Write(path, append(data, '\n'), 0o644)
}

// SyncDir fsyncs the directory dir so that a rename in it is durable.
// Errors are ignored: some filesystems refuse to fsync directories.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
