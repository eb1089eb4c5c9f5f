package privatetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/novelapi/novelapi/debenv"
)

// Store returns an environment store of the test's own, holding the real
// store's base environments (by a symbolic link each, read-only to the
// test) and nothing else, so that the layers a test adds, and removes, are
// never a user's: `novelapi add` of boltons over trixie-sci in a test
// would otherwise make and delete boltons-25.0.0.trixie-sci in
// $NOVELAPI_HOME/envs. The store is deleted when the test ends. A missing
// base skips the test, or fails it under NOVELAPI_REQUIRE_SANDBOX=1 (CI).
func Store(t testing.TB, bases ...string) *debenv.Store {
	t.Helper()
	real := debenv.OpenStore(Home(t))
	st := debenv.OpenStore(t.TempDir())
	if err := os.MkdirAll(st.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range bases {
		if _, err := real.Get(b); err != nil {
			if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
		if err := os.Symlink(filepath.Join(real.Dir, b), filepath.Join(st.Dir, b)); err != nil {
			t.Fatal(err)
		}
	}
	return st
}
