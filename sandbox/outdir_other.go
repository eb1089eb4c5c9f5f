//go:build !linux

package sandbox

import (
	"errors"
	"log/slog"
	"os"
)

// runDirPrefix starts every run directory's name.
const runDirPrefix = "novelapi-run-"

// makeOutDir fails: a sized tmpfs for OutDir needs Linux.
func makeOutDir(runDir string, l Limits, uid, gid int) (string, error) {
	return "", errors.New("a sized tmpfs for " + OutDir + " needs Linux")
}

func outFull(out string) bool { return false }

func readOutputs(dir string, o *outputsReader) {}

func removeRunDir(dir string) error { return os.RemoveAll(dir) }

func sweepRunDirs(tmp string, log *slog.Logger) {}
