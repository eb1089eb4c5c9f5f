//go:build !unix

package filelock

import (
	"errors"
	"os"
)

// errWouldBlock is never returned where flock is unavailable.
var errWouldBlock = errors.New("filelock: would block")

// lockFile is a no-op where flock is unavailable: concurrent writers then
// rely on atomic replacement alone and may lose each other's updates.
func lockFile(f *os.File, wait bool) error { return nil }
