package sandbox_test

import (
	"errors"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func newDocker(t *testing.T) *sandbox.Docker {
	t.Helper()
	d, err := sandbox.NewDocker(sandbox.DockerConfig{})
	if errors.Is(err, sandbox.ErrUnavailable) {
		sandboxtest.Unavailable(t, "no Docker engine answers: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// dockerEnv returns the environment with its imported image, or skips.
func dockerEnv(t *testing.T, name string) *sandbox.Environment {
	t.Helper()
	env := sandboxtest.Env(t, name)
	if env.Manifest.DockerImage == "" {
		sandboxtest.Unavailable(t, "environment %q has no Docker image (run `novelapi env docker %s`)", name, name)
	}
	return env
}

func TestDocker_Conformance(t *testing.T) {
	d := newDocker(t)
	sandboxtest.Conformance(t, d, dockerEnv(t, "trixie-sci"))
}
