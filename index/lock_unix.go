//go:build unix

package index

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes a shared (readers) or exclusive (builder) advisory lock on
// f. With nonblock it returns errLocked instead of waiting.
func lockFile(f *os.File, exclusive, nonblock bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if nonblock {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return errLocked
		}
		return err
	}
}
