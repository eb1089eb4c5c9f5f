//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// errWouldBlock is what lockFile returns when wait is false and another
// process holds the lock.
var errWouldBlock = syscall.EWOULDBLOCK

// lockFile takes an exclusive flock on f, waiting for it when wait is set;
// closing f releases it.
func lockFile(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
