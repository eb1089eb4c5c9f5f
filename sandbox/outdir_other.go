//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
)

// runDirPrefix starts every run directory's name.
const runDirPrefix = "novelapi-run-"

// makeOutDir fails: a sized tmpfs for OutDir needs Linux.
func makeOutDir(runDir string, l Limits, uid, gid int) (string, error) {
	return "", fmt.Errorf("a sized tmpfs for %s needs Linux: %w", OutDir, errors.ErrUnsupported)
}

func outFull(out string) bool { return false }

func readOutputs(dir string, o *outputsReader) {}

func removeRunDir(dir string) error { return os.RemoveAll(dir) }

func sweepRunDirs(tmp string, log *slog.Logger) {}
