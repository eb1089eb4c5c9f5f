package filelock_test

import (
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
