package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// Backend names accepted by Auto.
const (
	BackendAuto   = "auto"
	BackendBwrap  = "bwrap"
	BackendDocker = "docker"
)

// AutoConfig selects and configures a backend.
type AutoConfig struct {
	// Backend is "auto" (or ""), "bwrap" or "docker".
	Backend string
	// Bwrap and Docker configure the backends; their Log fields default to Log.
	Bwrap  BwrapConfig
	Docker DockerConfig
	// Log receives backend warnings; nil means slog.Default().
	Log *slog.Logger
}

// Auto returns the backend cfg.Backend names. "auto" picks bwrap when it
// works here, else Docker, else fails with an error wrapping
// ErrUnavailable that gives both reasons. There is no unsandboxed mode.
// ctx bounds the probes.
func Auto(ctx context.Context, cfg AutoConfig) (Runner, error) {
	if cfg.Bwrap.Log == nil {
		cfg.Bwrap.Log = cfg.Log
	}
	if cfg.Docker.Log == nil {
		cfg.Docker.Log = cfg.Log
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch cfg.Backend {
	case BackendBwrap:
		return NewBwrap(cfg.Bwrap)
	case BackendDocker:
		return NewDocker(cfg.Docker)
	case "", BackendAuto:
		b, berr := NewBwrap(cfg.Bwrap)
		if berr == nil {
			return b, nil
		}
		d, derr := NewDocker(cfg.Docker)
		if derr == nil {
			return d, nil
		}
		return nil, fmt.Errorf("%w: no sandbox backend works here (there is no unsandboxed mode):\n  bwrap: %v\n  docker: %v",
			ErrUnavailable, unwrapUnavailable(berr), unwrapUnavailable(derr))
	default:
		return nil, fmt.Errorf("sandbox: unknown backend %q (want auto, bwrap or docker)", cfg.Backend)
	}
}

// unwrapUnavailable drops the "sandbox: backend unavailable: " prefix for
// the combined message.
func unwrapUnavailable(err error) string {
	s := err.Error()
	p := ErrUnavailable.Error() + ": "
	if errors.Is(err, ErrUnavailable) && len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}
