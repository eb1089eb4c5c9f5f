package debenv

import (
	"errors"

	"golang.org/x/sys/unix"
)

// errNoExchange reports a file system without an atomic exchange of two paths.
var errNoExchange = errors.New("sandbox: atomic exchange unsupported")

// exchange atomically swaps the paths a and b (renameat2 RENAME_EXCHANGE).
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return errNoExchange
	}
	return err
}

// detach lazily unmounts the mount point mp (MNT_DETACH), ignoring errors.
func detach(mp string) { unix.Unmount(mp, unix.MNT_DETACH) }
