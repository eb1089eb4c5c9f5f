package main

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pipeline"
	"github.com/novelapi/novelapi/private/privatetest"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// TestEvalRun_PrivatePool: PriCoder's four measures for a pool over a
// private library, through the commands a user runs (docs/private.md §3):
// novelapi add of boltons 25.0.0 (trixie's python3-boltons, an installed
// tree) diffed against 21.0.0 (bookworm's, as a source tree) builds the
// pool; tasks predictions writes its reference completions and a mutant
// set; eval run prints the measures and eval report tables them. The
// references are all invoked with no non-existent call or signature error;
// each mutant kind moves the measure it breaks.
func TestEvalRun_PrivatePool(t *testing.T) {
	sandboxtest.Runner(t)
	st := privatetest.Store(t, "trixie-sci")
	home := filepath.Dir(st.Dir)
	old := privatetest.Tree(t, privatetest.Installed(t, "bookworm", "python3-boltons"))
	cur := privatetest.Installed(t, "trixie", "python3-boltons")
	backend := os.Getenv(sandboxtest.BackendEnvVar)
	if backend == "" {
		backend = "auto"
	}
	cli := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runArgs(t, home, args...)
		if code != 0 {
			t.Fatalf("novelapi %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	var added pipeline.AddResult
	if err := json.Unmarshal([]byte(cli("add", cur, "--old", old, "--env", "trixie-sci", "--workers", "2", "--backend", backend, "--json")), &added); err != nil {
		t.Fatal(err)
	}
	if added.Tasks == "" || added.C1Passed == 0 {
		t.Fatalf("add built no task passing C1: %+v", added)
	}

	dir := t.TempDir()
	runs := map[string]evalharness.Summary{}
	for _, kind := range []string{"reference", "mutants"} {
		preds := filepath.Join(dir, kind+".jsonl")
		args := []string{"tasks", "predictions", "--tasks", added.Tasks, "--out", preds}
		if kind == "mutants" {
			args = append(args, "--mutants")
		}
		cli(args...)
		out := filepath.Join(dir, "run-"+kind)
		text := cli("eval", "run", "--tasks", added.Tasks, "--predictions", preds, "--out", out, "--workers", "2", "--backend", backend)
		for _, w := range []string{"target invoked ", "required-API recall – (no task requires several APIs", "non-existent calls ", "signature errors "} {
			if !strings.Contains(text, w) {
				t.Errorf("eval run of the %s does not print %q:\n%s", kind, w, text)
			}
		}
		var s evalharness.Summary
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		runs[kind] = s
		cli("eval", "report", out)
		md, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(md), "| target invoked | non-existent calls | signature errors | required-API recall |") {
			t.Errorf("report.md of the %s lacks the four measures:\n%s", kind, md)
		}
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, "pass@1") || strings.Contains(l, "target invoked") {
				t.Logf("%s: %s", kind, strings.TrimSpace(l))
			}
		}
	}

	ref := runs["reference"]
	if ref.N != added.C1Passed || ref.TargetInvocationRate == nil || *ref.TargetInvocationRate != 1 ||
		*ref.NonexistentCallRate != 0 || *ref.SignatureErrorRate != 0 || ref.RequiredAPIRecall != nil {
		t.Errorf("references: %d judged, invocation %v, non-existent %v, signature %v, recall %v; want the %d passing C1 all invoked, none failing",
			ref.N, rate(ref.TargetInvocationRate), rate(ref.NonexistentCallRate), rate(ref.SignatureErrorRate), rate(ref.RequiredAPIRecall), added.C1Passed)
	}
	mut := runs["mutants"]
	if len(mut.Condition) < 4 || mut.Passed != 0 || *mut.TargetInvocationRate >= 1 {
		t.Errorf("mutant set: %d kinds, %d passed, invocation %v; want several kinds, none passing, fewer invoked", len(mut.Condition), mut.Passed, rate(mut.TargetInvocationRate))
	}
	// What each kind breaks.
	for cell, m := range mut.Condition {
		if m.N == 0 {
			continue // its task's reference fails C1: an infrastructure error
		}
		kind := strings.TrimPrefix(cell, evalharness.MutantCellPrefix)
		inv, nonex := *m.TargetInvocationRate, *m.NonexistentCallRate
		switch kind {
		case evalharness.KindEmpty, evalharness.KindProse, evalharness.KindSyntaxError:
			if inv != 0 || nonex != 0 {
				t.Errorf("%s: invocation %v, non-existent %v; want neither", kind, inv, nonex)
			}
		case evalharness.KindMisspeltImport:
			if inv != 0 || nonex != 1 {
				t.Errorf("%s: invocation %v, non-existent %v; want 0 and 1", kind, inv, nonex)
			}
		case evalharness.KindConstantReturn, evalharness.KindRaiseAfterCall:
			if inv != 1 || nonex != 0 {
				t.Errorf("%s: invocation %v, non-existent %v; want 1 and 0", kind, inv, nonex)
			}
		case evalharness.KindWrongKeyword:
			if *m.SignatureErrorRate == 0 {
				t.Errorf("%s: no signature error", kind)
			}
		}
	}
}

// TestAddCmd_DynamicVersion: a checkout of pluggy 1.5.0 laid out as its
// project (trixie's python3-pluggy, its version computed by
// setuptools-scm) one commit past its tag, without the generated version
// file, has no version add can find; the error says --version gives it,
// and with --version it is served over trixie-sci at that version.
func TestAddCmd_DynamicVersion(t *testing.T) {
	sandboxtest.Runner(t)
	st := privatetest.Store(t, "trixie-sci")
	home := filepath.Dir(st.Dir)
	tree := privatetest.DynamicTree(t, privatetest.Installed(t, "trixie", "python3-pluggy"), "setuptools-scm")
	if err := os.Remove(filepath.Join(tree, "src/pluggy/_version.py")); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) { t.Helper(); privatetest.Git(t, tree, args...) }
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "1.5.0")
	git("tag", "1.5.0")
	git("commit", "-q", "--allow-empty", "-m", "after 1.5.0")
	backend := cmp.Or(os.Getenv(sandboxtest.BackendEnvVar), "auto")

	code, _, stderr := runArgs(t, home, "add", tree, "--env", "trixie-sci", "--no-tasks", "--backend", backend)
	if code != 1 || !strings.Contains(stderr, "pass it with --version VERSION") {
		t.Fatalf("add without --version: exit %d, stderr:\n%s\nwant exit 1 and the --version hint", code, stderr)
	}
	code, stdout, stderr := runArgs(t, home, "add", tree, "--version", "1.5.1.dev1", "--env", "trixie-sci", "--no-tasks", "--workers", "2", "--backend", backend, "--json")
	var got pipeline.AddResult
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
		t.Fatalf("add --version: exit %d, %v\n%s", code, err, stderr)
	}
	t.Logf("pluggy %s (version from %s): %d candidates, %d bundles, %d with an executed example, %.0fs", got.Version, got.VersionFrom, got.Candidates, got.Bundles, got.Executed, got.Seconds)
	t.Cleanup(func() { st.Remove(t.Context(), got.Env) })
	if got.Library != "pluggy" || got.Version != "1.5.1.dev1" || got.VersionFrom != "--version" || got.Bundles == 0 {
		t.Errorf("add --version: %+v; want pluggy 1.5.1.dev1 (from --version) served", got)
	}
}
