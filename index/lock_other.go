//go:build !unix

package index

import "os"

// lockFile is a no-op where flock is unavailable: old generations are then
// only removed by the next build, which may break long-lived readers.
func lockFile(f *os.File, exclusive, nonblock bool) error { return nil }
