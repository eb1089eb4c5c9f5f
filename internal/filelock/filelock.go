// Package filelock serialises processes that rewrite one file: an
// exclusive advisory lock on a companion file (path + ".lock") held while
// a process reads, merges and atomically replaces the file.
package filelock

import (
	"fmt"
	"os"
)

// Lock takes the exclusive lock of path, waiting for another holder, and
// returns the function that releases it. The lock file is created if
// needed and left in place (removing it would race with a waiting locker).
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
