//go:build !linux

package sandbox

import (
	"errors"
	"log/slog"
)

// dockerCgroups is never available off Linux: the Docker backend then
// reports no CPU time, peak memory or pids-limit hit.
type dockerCgroups struct{}

type dockerRun struct{ parent string }

func openDockerCgroups(root, daemonHost, driver, version string) (*dockerCgroups, error) {
	return nil, errors.New("host cgroups are read on Linux only")
}

func (dc *dockerCgroups) create() (*dockerRun, error) {
	return nil, errors.New("host cgroups are read on Linux only")
}

func (dc *dockerCgroups) sweep(log *slog.Logger) int { return 0 }

func (r *dockerRun) started(id string) {}

func (r *dockerRun) poll() {}

func (r *dockerRun) apply(res *Result, pids int) bool { return false }

func (r *dockerRun) remove() error { return nil }
