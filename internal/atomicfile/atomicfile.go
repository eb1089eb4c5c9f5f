// Package atomicfile writes files so that readers see the old contents or
// the new ones, never a part: the data goes to a temporary file in the same
// directory, which is fsynced and renamed over the target.
package atomicfile

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same
// directory, fsyncs it, gives it mode perm and renames it into place. On
// error the temporary file is removed and path is untouched.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(f.Name(), perm); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
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
