package debenv

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDiskUsage_StaysOnItsFileSystem: another file system mounted in a
// build's target (a /proc was, under an environment built alongside two other
// builds, and failed the walk) is not walked: the measurement is the tree's own.
func TestDiskUsage_StaysOnItsFileSystem(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f"), make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	all, err := diskUsage(root)
	if err != nil {
		t.Fatal(err)
	}
	// Mounted over, the mount point's own directory blocks are out of sight.
	var mp syscall.Stat_t
	if err := syscall.Stat(filepath.Join(root, "proc"), &mp); err != nil {
		t.Fatal(err)
	}
	want := all - mp.Blocks*512
	// Another file system below root, holding a file of its own: a tmpfs
	// makes the count of a walk that enters it exact (the files of a real
	// /proc have no blocks; they fail the walk instead).
	if err := syscall.Mount("tmpfs", filepath.Join(root, "proc"), "tmpfs", 0, "size=4m"); err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") != "" {
			t.Fatalf("mount tmpfs: %v", err)
		}
		t.Skipf("mount tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { unmountUnder(root) })
	if err := os.WriteFile(filepath.Join(root, "proc", "big"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := diskUsage(root)
	if err != nil {
		t.Fatalf("diskUsage with a file system mounted at proc: %v", err)
	}
	if got != want {
		t.Errorf("diskUsage with a file system mounted at proc = %d, want %d (the tree alone, without the mount point)", got, want)
	}
	unmountUnder(root)
	if _, err := os.Stat(filepath.Join(root, "proc", "big")); err == nil {
		t.Errorf("unmountUnder left the file system mounted in %s", root)
	}
}
