//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"log/slog"
)

// BwrapConfig configures the bubblewrap backend (Linux only).
type BwrapConfig struct {
	Path       string
	CgroupRoot string
	TempDir    string
	Log        *slog.Logger
}

// Bwrap is the bubblewrap backend; on this platform it is never available.
type Bwrap struct{}

var _ Runner = (*Bwrap)(nil)

// NewBwrap returns an error wrapping ErrUnavailable: bubblewrap needs Linux.
func NewBwrap(cfg BwrapConfig) (*Bwrap, error) {
	return nil, fmt.Errorf("%w: bwrap needs Linux", ErrUnavailable)
}

// Name returns "bwrap".
func (b *Bwrap) Name() string { return "bwrap" }

// Run always fails with ErrUnavailable.
func (b *Bwrap) Run(ctx context.Context, spec Spec) (Result, error) {
	return Result{Backend: "bwrap", ExitCode: -1, InfraError: "bwrap needs Linux"}, fmt.Errorf("%w: bwrap needs Linux", ErrUnavailable)
}
