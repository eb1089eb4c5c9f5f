package importers_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

func errorsAsParse(err error) (*jsonl.ParseError, bool) {
	return errors.AsType[*jsonl.ParseError](err)
}

// checkAll runs CheckReferences over tasks and fails on any reference that
// does not pass both assemblies.
func checkAll(t *testing.T, tasks []*importers.Task) {
	t.Helper()
	bwrapOnly(t)
	res, err := importers.CheckReferences(t.Context(), tasks, importers.CheckConfig{
		Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home()), Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.InfraError != "" || !r.Original.Passed || !r.Monitor.Passed {
			t.Errorf("%s: infra %q original %+v monitored %+v", r.TaskID, r.InfraError, r.Original, r.Monitor)
		}
	}
}

// C1 on a handful of real CodeUpdateArena examples in the real sandbox:
// the math.sin references pass the original assembly and
// the monitored one (the spy sees the installed update).
func TestCheckReferences_Arena(t *testing.T) {
	sandboxtest.Env(t, importers.ArenaEnvironment)
	_, tasks, _ := importArena(t)
	var keep []*importers.Task
	for _, tk := range tasks {
		if tk.Group == "math" {
			keep = append(keep, tk)
		}
	}
	checkAll(t, keep)
}

// A reference that never calls the target fails the monitored assembly
// with taxonomy rule (a)'s message while still passing the original one.
func TestCheckReferences_ArenaNoTargetCall(t *testing.T) {
	sandboxtest.Env(t, importers.ArenaEnvironment)
	_, tasks, _ := importArena(t)
	tk := tasks[0]
	bwrapOnly(t)
	cp := *tk.Task
	cp.MaskedRegion = "from typing import List, Tuple\nimport math as _m\n\ndef calculate_sine_values(degrees_list):\n    return [(d, _m.old_sin(_m.radians(d % 360))) for d in degrees_list]\n"
	bad := *tk
	bad.Task = &cp
	res, err := importers.CheckReferences(t.Context(), []*importers.Task{&bad}, importers.CheckConfig{
		Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home()),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Monitor.Passed || r.Monitor.Reason != "AssertionError: solution did not call target API math.sin" {
		t.Errorf("monitored = %+v; want the not-called assertion", r.Monitor)
	}
}

// PriCoder-style references pass with the spy on every required API
// (real numpy/scipy APIs).
func TestCheckReferences_PriCoder(t *testing.T) {
	sandboxtest.Env(t, "trixie-sci")
	_, tasks := importPriCoder(t)
	checkAll(t, tasks)
}

// bwrapOnly selects the bwrap backend unless the environment names one:
// under "auto" the runs fail with "waitid: no child processes" (reported
// to the sandbox owners), while bwrap alone works.
func bwrapOnly(t *testing.T) {
	if os.Getenv(sandboxtest.BackendEnvVar) == "" {
		t.Setenv(sandboxtest.BackendEnvVar, "bwrap")
	}
}

// CheckPool keeps a pool's reference checks while the scripts that made
// them are the current ones (CheckDigest) and checks a task again, its old
// line dropped, once they differ.
func TestCheckPool_ResultsOfOtherScripts(t *testing.T) {
	sandboxtest.Env(t, "trixie-sci")
	bwrapOnly(t)
	dir, tasks := importPriCoder(t)
	cfg := importers.CheckConfig{Runner: sandboxtest.Runner(t), Store: debenv.OpenStore(sandboxtest.Home()), Workers: 2}
	if _, err := importers.CheckPool(t.Context(), dir, cfg); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, importers.CheckFile)
	id := tasks[0].TaskID
	for _, tt := range []struct {
		name, harness string
		reused        bool
	}{
		{"SameScripts", importers.CheckDigest(), true},
		{"OtherScripts", "0123456789abcdef", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The file says the scripts of digest tt.harness found that
			// the first task's reference fails under the monitor.
			recs, _, err := jsonl.Read[importers.CheckResult](path, jsonl.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range recs {
				if recs[i].TaskID == id {
					recs[i].Monitor = importers.Outcome{Failed: []string{"monitored"}, Reason: "forged"}
					recs[i].Harness = tt.harness
				}
			}
			if err := jsonl.Write(path, recs); err != nil {
				t.Fatal(err)
			}
			sum, err := importers.CheckPool(t.Context(), dir, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := jsonl.Read[importers.CheckResult](path, jsonl.ReadOptions{})
			if err != nil || len(got) != len(tasks) {
				t.Fatalf("%s holds %d results (err %v); want %d", importers.CheckFile, len(got), err, len(tasks))
			}
			for _, r := range got {
				if r.TaskID != id {
					continue
				}
				if reused := r.Monitor.Reason == "forged"; reused != tt.reused || r.Harness != importers.CheckDigest() {
					t.Errorf("%s: monitored %+v, harness %q; want the forged result reused %v", id, r.Monitor, r.Harness, tt.reused)
				}
			}
			if want := len(tasks) - b2i(tt.reused); sum.Total.MonitorPassed != want {
				t.Errorf("monitor passed %d; want %d", sum.Total.MonitorPassed, want)
			}
		})
	}
}
