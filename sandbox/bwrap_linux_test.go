package sandbox_test

import (
	"errors"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func newBwrap(t *testing.T) *sandbox.Bwrap {
	t.Helper()
	b, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if errors.Is(err, sandbox.ErrUnavailable) {
		sandboxtest.Unavailable(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBwrap_Conformance(t *testing.T) {
	b := newBwrap(t)
	sandboxtest.Conformance(t, b, sandboxtest.Env(t, "trixie-sci"))
}
