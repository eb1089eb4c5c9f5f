package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRootBinds(t *testing.T) {
	mk := func(t *testing.T, dirs []string, links map[string]string) string {
		t.Helper()
		root := t.TempDir()
		for _, d := range dirs {
			if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	t.Run("AllMountPoints", func(t *testing.T) {
		// As `novelapi env build` makes them: one bind of the whole root.
		root := mk(t, []string{"usr", "etc", "proc", "dev", "tmp", "job", "out"}, map[string]string{"bin": "usr/bin"})
		got, err := rootBinds(root)
		if want := []string{"--ro-bind", root, "/"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("rootBinds = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("MissingMountPoint", func(t *testing.T) {
		// No job/, and tmp is a symlink, not a directory: the top level is
		// rebuilt entry by entry so bwrap can create /job and /tmp.
		root := mk(t, []string{"etc", "proc", "dev", "out", "usr"}, map[string]string{"bin": "usr/bin", "tmp": "var/tmp"})
		got, err := rootBinds(root)
		want := []string{"--symlink", "usr/bin", "/bin", "--ro-bind", filepath.Join(root, "etc"), "/etc",
			"--ro-bind", filepath.Join(root, "usr"), "/usr"}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("rootBinds = %q, %v; want %q", got, err, want)
		}
	})
}
