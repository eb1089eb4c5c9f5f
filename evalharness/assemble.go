package evalharness

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/pysyntax"
	"github.com/novelapi/novelapi/pool"
)

// Script assembly, docs/protocol.md §4.1. The setup text holds parts
// [A]-[G]; the runner (py/runner.py) joins setup, completion and test with
// "\n\n" after stripping each, dropping empty ones, exactly as the flat
// script of the protocol.

// importLine is part [A]: "import <api_name minus last segment>", omitted
// when the name has no dot. novelapi extension: when the parent has more
// than one segment the import falls back to shorter prefixes instead of
// failing the script, since the parent need not be a module: a class
// ("pandas.Series.case_when", "numpy.ndarray.sum"), a module reached as an
// attribute ("matplotlib.pyplot.style.use": matplotlib.pyplot is not a
// package) or an instance ("scipy.stats.irwinhall.fit"). When the parent is
// a module the first import is the protocol's line; one that exists nowhere
// leaves the target unresolved, which the monitor reports as the task's
// defect (§4.4).
func importLine(apiName string) string {
	i := strings.LastIndexByte(apiName, '.')
	if i < 0 {
		return ""
	}
	parent := apiName[:i]
	segs := strings.Split(parent, ".")
	if len(segs) == 1 {
		return "import " + parent
	}
	// try: import a.b.C / except ImportError: try: import a.b / ... import a
	var b strings.Builder
	indent := ""
	for n := len(segs); n > 1; n-- {
		fmt.Fprintf(&b, "%stry:\n%s    import %s\n%sexcept ImportError:\n", indent, indent, strings.Join(segs[:n], "."), indent)
		indent += "    "
	}
	fmt.Fprintf(&b, "%simport %s", indent, segs[0])
	return b.String()
}

// leafBinding is part [D]: bind the bare leaf to the (patched) target when
// the script has not defined it.
func leafBinding(apiName string) string {
	i := strings.LastIndexByte(apiName, '.')
	if i < 0 || !pysyntax.IsIdentifier(apiName[i+1:]) {
		return ""
	}
	leaf, parent := apiName[i+1:], apiName[:i]
	return fmt.Sprintf("try:\n    %s\nexcept NameError:\n    try:\n        from %s import %s\n    except Exception:\n        pass", leaf, parent, leaf)
}

const (
	// resetCount is part [E] (novelapi also resets the per-API counts).
	resetCount = "try:\n    _target_api_call_count[0] = 0\n    for _spy_k in _target_api_counts:\n        _target_api_counts[_spy_k] = 0\nexcept NameError:\n    pass"
	// startRecording is part [F].
	startRecording = "try:\n    del _target_api_calls[:]\n    _target_api_recording[0] = True\nexcept NameError:\n    pass"
)

// RecordingMonitor returns the recording monitor (§4.4) for the targets
// (the task's api_name first), with the fingerprint helpers (§4.5).
func RecordingMonitor(targets []string) string {
	return recordingMonitor(targets, nil)
}

// A spyAlias is a further public path of a monitored target whose calls
// count as calls of Target (novelapi extension): an instance of a class
// target ("scipy.stats.triang" for "scipy.stats.distributions.triang_gen")
// or a method reached through one. The monitor skips an alias it cannot
// resolve.
type spyAlias struct {
	Path, Target string
}

// recordingMonitor is [RecordingMonitor] that also watches aliases.
func recordingMonitor(targets []string, aliases []spyAlias) string {
	lits := make([]string, len(targets))
	for i, t := range targets {
		lits[i] = pyStr(t)
	}
	pairs := make([]string, len(aliases))
	for i, a := range aliases {
		pairs[i] = "[" + pyStr(a.Path) + ", " + pyStr(a.Target) + "]"
	}
	mon := strings.Replace(pyFile("recording_monitor.py"), "__NOVELAPI_TARGETS__", "["+strings.Join(lits, ", ")+"]", 1)
	mon = strings.Replace(mon, "__NOVELAPI_ALIASES__", "["+strings.Join(pairs, ", ")+"]", 1)
	return pyFile("fingerprint.py") + "\n\n" + mon
}

// reseedPrelude is part [G] when building reference records (§4.5 step 2).
func reseedPrelude(seed int, torch bool) string {
	s := fmt.Sprintf("import random as _rs_random\n_rs_random.seed(%d)\nimport sys as _rs_sys\nif \"numpy\" in _rs_sys.modules:\n    _rs_sys.modules[\"numpy\"].random.seed(%d)", seed, seed)
	if torch {
		s += fmt.Sprintf("\ntry:\n    import torch as _rs_torch\n    _rs_torch.manual_seed(%d)\nexcept Exception:\n    pass", seed)
	} else {
		s += fmt.Sprintf("\nif \"torch\" in _rs_sys.modules:\n    _rs_sys.modules[\"torch\"].manual_seed(%d)", seed)
	}
	return s
}

// setupOptions selects the optional parts of the setup.
type setupOptions struct {
	leafBinding bool   // [D], evaluation only
	prelude     string // [G]
	// aliases are further paths the monitor [B] watches (check_code).
	aliases []spyAlias
}

// buildSetup joins parts [A]-[G] for task (§4.1), with the task's hidden
// setup [A'] between [A] and the monitor [B]. Tasks without a spy get only
// the hidden setup and the context.
func buildSetup(t *pool.Task, o setupOptions) string {
	var parts []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	add(bundles.Bootstrap(t.APIName)) // the library's bootstrap (docs/environments.md §8) before anything imports it
	if !t.SpyNeeded() {
		add(t.HiddenSetup)
		add(t.ContextCode)
		add(o.prelude)
		return strings.Join(parts, "\n\n")
	}
	add(importLine(t.APIName))
	add(t.HiddenSetup) // [A'], novelapi: installs what the monitor must wrap
	add(recordingMonitor(t.Targets(), o.aliases))
	add(t.ContextCode)
	if o.leafBinding {
		add(leafBinding(t.APIName))
	}
	add(resetCount)
	add(startRecording)
	add(o.prelude)
	return strings.Join(parts, "\n\n")
}

// newRunnerJob returns the job of task with its setup (buildSetup) and
// what the judge needs to run the test apart from the completion: the
// import line and hidden setup, the modules to import before forking,
// the monitored targets and the packages whose values may cross.
func newRunnerJob(t *pool.Task, o setupOptions) runnerJob {
	j := runnerJob{Setup: buildSetup(t, o), Bootstrap: bundles.Bootstrap(t.APIName)}
	var judge []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			judge = append(judge, s)
		}
	}
	add(j.Bootstrap)
	if t.SpyNeeded() {
		add(importLine(t.APIName))
		if i := strings.LastIndexByte(t.APIName, '.'); i > 0 {
			segs := strings.Split(t.APIName[:i], ".")
			for n := len(segs); n >= 1; n-- {
				j.Preimport = append(j.Preimport, strings.Join(segs[:n], "."))
			}
		}
		j.Targets = t.Targets()
		j.Refs = append([]string(nil), j.Targets...)
		for _, a := range o.aliases {
			j.Refs = append(j.Refs, a.Path)
		}
	}
	// The task's libraries are its targets' packages, spy or not: with the
	// spy off (evalharness.SpyOff, HumanEval-style pools) the test still
	// reads the library's values, which must cross as data.
	seen := map[string]bool{}
	for _, tg := range t.Targets() {
		if top, _, _ := strings.Cut(tg, "."); top != "" && !seen[top] {
			seen[top] = true
			j.Tops = append(j.Tops, top)
		}
	}
	add(t.HiddenSetup)
	j.JudgeSetup = strings.Join(judge, "\n\n")
	return j
}

// CallCheck returns the call-record check block (§4.5) for the expected
// records.
func CallCheck(expected []json.RawMessage) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range expected {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return strings.Replace(pyFile("call_check.py"), "__NOVELAPI_EXPECTED__", pyStr(b.String()), 1)
}

// spliceTest inserts the call-record check after the first pool.EndCheckMarker
// of executionTest (§4.1). expected nil means no check (reference runs).
func spliceTest(executionTest string, expected []json.RawMessage, withCheck bool) (string, error) {
	if !withCheck {
		return executionTest, nil
	}
	head, tail, ok := strings.Cut(executionTest, pool.EndCheckMarker)
	if !ok {
		return "", errors.New("execution_test lacks the " + pool.EndCheckMarker + " marker")
	}
	return head + pool.EndCheckMarker + "\n" + CallCheck(expected) + tail, nil
}
