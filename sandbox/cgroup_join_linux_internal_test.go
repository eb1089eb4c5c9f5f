package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestJoinScript(t *testing.T) {
	if got := joinScript(nil); got != "" {
		t.Errorf("joinScript(nil) = %q; want \"\"", got)
	}
	// The script is run by sh: each path reaches it as one word, quotes and
	// spaces included, and "$0" "$@" is exec'd only when every write worked.
	dir := t.TempDir()
	a, b := filepath.Join(dir, "it's a"), filepath.Join(dir, "b")
	script := joinScript([]string{a, b})
	out, err := exec.Command("/bin/sh", "-c", script, "/bin/echo", "ran", "x y").CombinedOutput()
	if err != nil || string(out) != "ran x y\n" {
		t.Fatalf("sh -c %q = %q, %v; want \"ran x y\\n\"", script, out, err)
	}
	for _, p := range []string{a, b} {
		if data, err := os.ReadFile(p); err != nil || string(data) != "0\n" {
			t.Errorf("%s = %q, %v; want \"0\\n\"", p, data, err)
		}
	}
	script = joinScript([]string{filepath.Join(dir, "missing", "tasks"), a})
	if out, err := exec.Command("/bin/sh", "-c", script, "/bin/echo", "ran").CombinedOutput(); err == nil {
		t.Errorf("sh -c %q with an unwritable first file = %q, nil; want a failure without exec", script, out)
	}
}
