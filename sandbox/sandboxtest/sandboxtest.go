// Package sandboxtest gives tests a real sandbox: an available Runner, a
// built environment, and a conformance suite of adversarial programs
// (docs/sandbox.md §3) that every backend must pass with the same verdict
// facts. Like net/http/httptest it lives beside the package it serves.
//
// Helpers skip the test with a loud reason when a backend or environment is
// missing, but fail it when NOVELAPI_REQUIRE_SANDBOX=1 (CI), so sandbox
// coverage cannot vanish silently.
package sandboxtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

// RequireEnvVar names the variable that turns skips into failures.
const RequireEnvVar = "NOVELAPI_REQUIRE_SANDBOX"

// BackendEnvVar names the variable that picks Runner's backend
// ("auto" when unset, or "bwrap", "docker").
const BackendEnvVar = "NOVELAPI_SANDBOX_BACKEND"

// Required reports whether missing sandboxes must fail tests.
func Required() bool { return os.Getenv(RequireEnvVar) == "1" }

// Unavailable skips t with a loud message, or fails it when Required.
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf("SANDBOX REQUIRED ("+RequireEnvVar+"=1) but unavailable: "+format, args...)
	}
	t.Skipf("SKIPPING: sandbox unavailable (set "+RequireEnvVar+"=1 to fail instead): "+format, args...)
}

var (
	runnersMu sync.Mutex
	runners   = map[string]sandbox.Runner{}
)

// Runner returns a working sandbox.Runner chosen by sandbox.Auto (backend
// from $NOVELAPI_SANDBOX_BACKEND, default "auto"), shared by the tests of
// the process. It calls Unavailable when no backend works.
func Runner(t testing.TB) sandbox.Runner {
	t.Helper()
	backend := os.Getenv(BackendEnvVar)
	if backend == "" {
		backend = sandbox.BackendAuto
	}
	runnersMu.Lock()
	defer runnersMu.Unlock()
	if r, ok := runners[backend]; ok {
		return r
	}
	r, err := sandbox.Auto(context.Background(), sandbox.AutoConfig{Backend: backend})
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			Unavailable(t, "%v", err)
		}
		t.Fatalf("sandbox.Auto(%q): %v", backend, err)
	}
	runners[backend] = r
	return r
}

// Home returns the data directory the helpers read: $NOVELAPI_HOME, else
// the user's cache directory + /novelapi (as the binary does).
func Home() string {
	if h := os.Getenv("NOVELAPI_HOME"); h != "" {
		return h
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "novelapi")
	}
	return filepath.Join(os.TempDir(), "novelapi")
}

// Env returns the built environment called name from the store under
// Home, calling Unavailable when it is not built.
func Env(t testing.TB, name string) *sandbox.Environment {
	t.Helper()
	env, err := debenv.OpenStore(Home()).Get(name)
	if err != nil {
		if errors.Is(err, debenv.ErrUnknownEnvironment) {
			Unavailable(t, "environment %q is not built (novelapi env build; .ci/run builds the test environments): %v", name, err)
		}
		t.Fatalf("environment %q: %v", name, err)
	}
	return env
}
