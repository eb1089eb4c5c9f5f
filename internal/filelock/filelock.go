// Package filelock serialises processes that rewrite one file: an
// exclusive advisory lock on a companion file (path + ".lock") held while
// a process reads, merges and atomically replaces the file.
package filelock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrLocked reports that another process holds the lock [TryLock] asked for.
var ErrLocked = errors.New("filelock: held by another process")

// A LockedError reports a lock held by another process ([TryLock]); it
// matches [ErrLocked] with errors.Is.
type LockedError struct {
	Path string // the lock file
	PID  int    // the holder's process id as it recorded it; 0 when unknown
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is held by process %d", e.Path, e.PID)
	}
	return e.Path + " is held by another process"
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock takes the exclusive lock of path, waiting for another holder, and
// returns the function that releases it. The lock file is created if
// needed and left in place (removing it would race with a waiting locker).
func Lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFile(f, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// TryLock takes the exclusive lock of path without waiting. When another
// process holds it, the error is a *[LockedError] naming the holder's
// process id, which TryLock writes into the lock file of each lock it
// takes. The lock is released by unlock or when the process ends.
func TryLock(path string) (unlock func(), err error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFile(f, false); err != nil {
		f.Close()
		if errors.Is(err, errWouldBlock) {
			le := &LockedError{Path: name}
			if b, rerr := os.ReadFile(name); rerr == nil {
				le.PID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			return nil, le
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
