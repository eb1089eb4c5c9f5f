package filelock_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/novelapi/novelapi/internal/filelock"
)

// TestLock_Exclusive: holders of one path's lock never overlap.
func TestLock_Exclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checks.jsonl")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		inside  int
		overlap bool
	)
	for range 8 {
		wg.Go(func() {
			unlock, err := filelock.Lock(path)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inside++
			overlap = overlap || inside > 1
			mu.Unlock()
			runtime.Gosched()
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		})
	}
	wg.Wait()
	if overlap {
		t.Error("two holders of the lock at once")
	}
}

// TestTryLock_Held: a second TryLock of a held path fails at once with a
// LockedError naming the holder's pid; after unlock it succeeds.
func TestTryLock_Held(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run")
	unlock, err := filelock.TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = filelock.TryLock(path)
	le, ok := errors.AsType[*filelock.LockedError](err)
	if !ok || !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("second TryLock: %v; want a LockedError", err)
	}
	if le.PID != os.Getpid() {
		t.Errorf("holder pid %d; want %d", le.PID, os.Getpid())
	}
	unlock()
	unlock2, err := filelock.TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after unlock: %v", err)
	}
	unlock2()
}
