package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRunCgroup_BoostCPU(t *testing.T) {
	// A stand-in directory with the one file boostCPU touches.
	dir := t.TempDir()
	shares := filepath.Join(dir, "cpu.shares")
	if err := os.WriteFile(shares, []byte("1024\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		data, err := os.ReadFile(shares)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	r := &runCgroup{dirs: map[string]string{"cpu": dir, "memory": t.TempDir()}}
	w := r.boostCPU()
	if got := read(); got != "3072" {
		t.Errorf("cpu.shares after boostCPU = %q; want 3072", got)
	}
	for k, want := range []int64{3072, 2048, 1536, 1280, 1152, 1024, 1024} {
		if got := w.at(k); got != want {
			t.Errorf("weight at step %d = %d; want %d", k, got, want)
		}
	}
	stop := w.decay(time.Millisecond)
	defer stop()
	for deadline := time.Now().Add(5 * time.Second); read() != "1024" && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got := read(); got != "1024" {
		t.Errorf("cpu.shares after the decay = %q; want 1024", got)
	}

	// v2 run cgroups and runs without a cpu controller are left alone.
	for _, dirs := range []map[string]string{{"": dir}, {"memory": dir}} {
		if w := (&runCgroup{dirs: dirs}).boostCPU(); w.dir != "" {
			t.Errorf("boostCPU on %v boosted %s; want nothing", dirs, w.dir)
		}
	}
}
