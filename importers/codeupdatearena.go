package importers

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

// An ArenaRecord is one line of CodeUpdateArena's grouped arena.jsonl
// (Liu et al. 2024, arXiv 2407.06249; repository leo-liuzy/CodeUpdateArena,
// data/arena.jsonl, MIT): one fictitious update and its program-synthesis
// examples.
type ArenaRecord struct {
	Update   ArenaUpdate    `json:"update"`
	Examples []ArenaExample `json:"prog_syn_examples"`
}

// An ArenaUpdate is a fictitious update of a real function.
type ArenaUpdate struct {
	Description    string   `json:"description"`
	Rationale      string   `json:"rationale"`
	Docstring      string   `json:"docstring"`
	Signature      string   `json:"signature"`      // the updated signature, free-form
	Imports        []string `json:"imports"`        // includes "old_<name> = pkg.<name>"
	Implementation string   `json:"implementation"` // "def <name>(...): ..."
	UpdateType     string   `json:"update_type"`    // e.g. "modify-function-name"
	FunctionPath   string   `json:"function_path"`  // the real function updated, e.g. "math.sin"
	Package        string   `json:"package"`        // math, re, itertools, numpy, sympy, torch
	UpdateID       string   `json:"update_id"`      // "[math.sin]:[modify-output-semantics]:[update-0]"
}

// An ArenaExample is one program-synthesis example of an update.
type ArenaExample struct {
	Scenario          string   `json:"scenario"`
	Problem           string   `json:"problem"`
	SolutionSignature string   `json:"solution_signature"`
	UnitTests         []string `json:"unit_tests"` // each a "def test_...():" function
	Imports           []string `json:"imports"`
	RefSolution       string   `json:"ref_solution"`
	ProgSynID         string   `json:"prog_syn_id"`
}

// Names of the imported CodeUpdateArena set.
const (
	// ArenaOrigin is Provenance.Origin and Task.Origin of imported
	// CodeUpdateArena bundles and tasks.
	ArenaOrigin = "codeupdatearena"
	// ArenaLibrary is the library key of every imported CodeUpdateArena
	// bundle and task. The updates are fictitious, so they must never mix
	// with the real library's bundles under its key: a search filtered to
	// "numpy" finds real numpy only, one filtered to "codeupdatearena" finds
	// the whole imported set. The real package is Provenance.Library and
	// Task.Group.
	ArenaLibrary = "codeupdatearena"
	// ArenaEnvironment is the environment imported tasks name: Debian
	// trixie with numpy, sympy and torch (math, re and itertools are in the
	// standard library).
	ArenaEnvironment = "trixie-arena"
)

// arenaDomain returns the protocol domain (docs/protocol.md §1.2) of an
// arena package: its library's ([bundles.DomainOf]), and swe for the
// standard library's modules.
func arenaDomain(pkg string) string {
	switch pkg {
	case "math", "re", "itertools":
		return "swe"
	}
	return bundles.DomainOf(pkg)
}

// ArenaConfig configures [ImportCodeUpdateArena]. The zero value works.
type ArenaConfig struct {
	// Environment is the environment tasks name; "" means ArenaEnvironment.
	Environment string
	// SkipPackages lists packages whose examples are written to skipped.jsonl
	// instead of tasks.jsonl, with SkipReason (e.g. torch when python3-torch
	// is not installable). Their bundles are still written.
	SkipPackages []string
	SkipReason   string
	// TimeoutS is the per-task wall limit in seconds; 0 means
	// ArenaSecondsPerTest for each unit test (all of them run in one
	// script), at least 60 for torch examples (slow import) and 30
	// otherwise.
	TimeoutS float64
}

// ArenaSecondsPerTest is the wall budget per unit test of an imported
// task: the original test bed's limit for the program that runs one unit
// test (CodeUpdateArena src/utils/code.py concat_and_exec, 15 s).
const ArenaSecondsPerTest = 15

var defName = regexp.MustCompile(`(?m)^def\s+([A-Za-z_]\w*)\s*\(`)

// ImportCodeUpdateArena reads CodeUpdateArena's arena.jsonl at path and
// writes into out: bundles.jsonl (one bundle per update), tasks.jsonl (one
// task per program-synthesis example, in the protocol's task format with
// novelapi's hidden_setup), expected_calls.jsonl (status ok, no records:
// the example's unit tests decide), reference_predictions.jsonl (the
// reference solutions, for C1 runs), skipped.jsonl and import.json.
//
// How the pieces map (docs/importers.md has the full table):
//   - bundle: S from the updated signature, M from description and
//     docstring (grounding "docstring"), C from the implementation, E empty
//     (every example the dataset has is a task's unit test);
//     library ArenaLibrary, Provenance {Origin: ArenaOrigin, Library: the
//     package, Version: the update id}.
//   - task: api_name is the installed name (parent of function_path + the
//     implementation's def name, so renamed functions are spied under the
//     new name); hidden_setup installs the update exactly as the original
//     test bed does (the example's imports keeping old_<name>, the
//     implementation, then "pkg.name = name", or for renames "del
//     pkg.old" + setattr, for new functions setattr); context_code holds the
//     example's plain import lines; masked_region is ref_solution; the
//     execution test is the check block, then every unit test and a call to
//     each, in order.
//
// A malformed line fails with a *jsonl.ParseError naming path and line.
// Records that cannot be turned into a task (no def in the implementation,
// duplicate ids) are listed in skipped.jsonl.
func ImportCodeUpdateArena(path, out string, cfg ArenaConfig) (Stats, error) {
	recs, err := readRecords[ArenaRecord](path)
	if err != nil {
		return Stats{}, err
	}
	env := cfg.Environment
	if env == "" {
		env = ArenaEnvironment
	}
	var (
		bs       []bundles.Bundle
		tasks    []*Task
		expected []*pool.ExpectedCalls
		skipped  []Skipped
		seen     = map[string]bool{}
		perGroup = map[string]int{}
	)
	for i, r := range recs {
		line := i + 1 // record number: the line number when the file has no blank lines
		u := r.Update
		if u.FunctionPath == "" || u.UpdateID == "" {
			return Stats{}, &jsonl.ParseError{Path: path, Line: line, Err: errors.New("update lacks function_path or update_id")}
		}
		api, err := installedName(u)
		if err != nil {
			for _, ex := range r.Examples {
				skipped = append(skipped, Skipped{Line: line, ID: ex.ProgSynID, Reason: err.Error(), Group: u.Package})
			}
			continue
		}
		bs = append(bs, arenaBundle(u, api))
		for _, ex := range r.Examples {
			t := arenaTask(u, ex, api, env, cfg.TimeoutS)
			if seen[t.TaskID] {
				skipped = append(skipped, Skipped{Line: line, ID: ex.ProgSynID, Reason: "duplicate task id", Group: u.Package, TaskID: t.TaskID})
				continue
			}
			seen[t.TaskID] = true
			if slices.Contains(cfg.SkipPackages, u.Package) {
				reason := cfg.SkipReason
				if reason == "" {
					reason = "package " + u.Package + " skipped"
				}
				skipped = append(skipped, Skipped{Line: line, ID: ex.ProgSynID, Reason: reason, Group: u.Package, TaskID: t.TaskID})
				continue
			}
			tasks = append(tasks, t)
			expected = append(expected, noRecords(t.Task, "codeupdatearena"))
			perGroup[u.Package]++
		}
	}
	if err := writePool(out, bs, tasks, expected, skipped); err != nil {
		return Stats{}, err
	}
	st := Stats{Origin: ArenaOrigin, Input: path, Bundles: len(bs), Tasks: len(tasks), Skipped: len(skipped), PerGroup: perGroup, OutDir: out}
	return st, writeStats(out, st)
}

// installedName returns the name the update is installed under: the
// parent of function_path plus the implementation's def name.
func installedName(u ArenaUpdate) (string, error) {
	m := defName.FindStringSubmatch(u.Implementation)
	if m == nil {
		return "", fmt.Errorf("update %s: implementation defines no top-level function", u.UpdateID)
	}
	i := strings.LastIndexByte(u.FunctionPath, '.')
	if i < 0 {
		return "", fmt.Errorf("update %s: function_path %q has no package", u.UpdateID, u.FunctionPath)
	}
	return u.FunctionPath[:i] + "." + m[1], nil
}

// enforceStatements returns the original test bed's update statements
// (CodeUpdateArena src/data/manager_update.py, Manager.get_update_statements):
// a renamed function deletes the old name and sets the new one, a new
// function is set, anything else replaces the function in place.
func enforceStatements(u ArenaUpdate, api string) string {
	parent, leaf, _ := strings.Cut(api, ".")
	if i := strings.LastIndexByte(api, '.'); i >= 0 {
		parent, leaf = api[:i], api[i+1:]
	}
	switch {
	case strings.HasPrefix(u.UpdateType, "modify-function-name"):
		return fmt.Sprintf("del %s\nsetattr(%s, '%s', %s)", u.FunctionPath, parent, leaf, leaf)
	case u.UpdateType == "add-function":
		return fmt.Sprintf("setattr(%s, '%s', %s)", parent, leaf, leaf)
	default:
		return fmt.Sprintf("%s = %s", u.FunctionPath, leaf)
	}
}

// arenaHiddenSetup is the update installation of the original test bed:
// imports, implementation, update statements.
func arenaHiddenSetup(u ArenaUpdate, ex ArenaExample, api string) string {
	imports := ex.Imports
	if len(imports) == 0 {
		imports = u.Imports
	}
	return strings.Join(imports, "\n") + "\n\n" +
		"# --- CodeUpdateArena update " + u.UpdateID + " ---\n" +
		strings.TrimRight(u.Implementation, "\n") + "\n\n" +
		enforceStatements(u, api) + "\n"
}

// plainImports keeps the import statements of lines (no old_<name>
// assignments, no setattr): the context a solver may see.
func plainImports(lines []string) string {
	var keep []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ") {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "\n")
}

func arenaBundle(u ArenaUpdate, api string) bundles.Bundle {
	b := bundles.Bundle{
		APIName: api, Library: ArenaLibrary, Domain: arenaDomain(u.Package), SName: api,
		Implementation: strings.TrimRight(u.Implementation, "\n"),
		IsModified:     arenaModified(u),
		Mechanism: bundles.Mechanism{
			Text:      strings.TrimSpace(u.Description) + "\n\n" + strings.TrimSpace(u.Docstring),
			Grounding: bundles.GroundingDocstring,
			Generator: "docstring",
		},
		Provenance: &bundles.Provenance{
			Library: u.Package, Version: u.UpdateID, Origin: ArenaOrigin, Kind: "function",
			Components: map[string]string{
				"S": "import:codeupdatearena:update.signature",
				"M": "import:codeupdatearena:update.description+update.docstring",
				"C": "import:codeupdatearena:update.implementation",
			},
		},
	}
	if sig, ok := ParseSignature(u.Signature); ok {
		b.SParam = sig.Params
		b.ReturnType = sig.ReturnType
	} else {
		b.Provenance.Components["S"] = "import:codeupdatearena:none (signature unparseable: " + u.Signature + ")"
	}
	if b.IsModified {
		b.OldSignature = nil // the dataset does not record the real signature
	}
	if len(b.Implementation) > 0 && len([]rune(b.Implementation)) > bundles.MaxImplementation {
		b.Implementation = ""
		b.Provenance.Components["C"] = "dropped: longer than bundles.MaxImplementation"
	}
	b.Provenance.Hash = b.ComputeHash()
	return b
}

// arenaModified reports whether the update changes an existing function
// (true) or introduces a name (renames and new functions, false).
func arenaModified(u ArenaUpdate) bool {
	return !strings.HasPrefix(u.UpdateType, "modify-function-name") && u.UpdateType != "add-function"
}

// arenaTaskID derives a stable task id from prog_syn_id
// "[math.sin]:[modify-output-semantics]:[update-0]:[prog_syn-0]" →
// "cua_math.sin_modify-output-semantics_update-0_prog_syn-0".
func arenaTaskID(progSynID string) string {
	s := strings.NewReplacer("]:[", "_", "[", "", "]", "").Replace(progSynID)
	return "cua_" + safeID(s)
}

func arenaTask(u ArenaUpdate, ex ArenaExample, api, env string, timeout float64) *Task {
	id := arenaTaskID(ex.ProgSynID)
	if timeout == 0 {
		timeout = 30
		if u.Package == "torch" {
			timeout = 60
		}
		timeout = max(timeout, float64(ArenaSecondsPerTest*len(ex.UnitTests)))
	}
	ctx := plainImports(ex.Imports)
	if ctx == "" {
		ctx = plainImports(u.Imports)
	}
	ref := strings.TrimRight(ex.RefSolution, "\n")
	entry := entryPoint(ex.SolutionSignature, ref)
	var test strings.Builder
	scope := pool.SpyScopeEntryPoint
	if entry == "" {
		// No function to attribute calls to: count every call after the
		// context up to the tail (the tests' own calls included).
		scope = pool.SpyScopeCompletion
		test.WriteString(DeferredCheckHead(api, ""))
	} else {
		test.WriteString(CheckHead(api))
	}
	var calls, units []string
	for _, ut := range ex.UnitTests {
		test.WriteString("\n" + strings.TrimRight(ut, " \n") + "\n")
		if m := defName.FindStringSubmatch(ut); m != nil {
			calls = append(calls, m[1]+"()")
			units = append(units, ut+"\n"+m[1]+"()")
		}
	}
	test.WriteString("\n" + strings.Join(calls, "\n") + "\n")
	if scope == pool.SpyScopeCompletion {
		test.WriteString("\n" + DeferredCheckTail(api))
	}
	novelty := pool.NoveltyModified
	if !arenaModified(u) {
		novelty = pool.NoveltyNew
	}
	desc := strings.TrimSpace(ex.Scenario) + "\n\n" + strings.TrimSpace(ex.Problem) +
		"\n\nThe solution defines:\n" + strings.TrimSpace(ex.SolutionSignature)
	et := &pool.Task{
		TaskID: id, APIName: api, Library: ArenaLibrary, Domain: arenaDomain(u.Package),
		Description: desc, ContextCode: ctx, MaskedRegion: ref,
		ReferenceSolution: strings.TrimSpace(ctx + "\n\n" + ref),
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor(api), ExecutionTest: test.String(),
			TargetAPI: api, GenerationMethod: "import:codeupdatearena",
			ScenariosSucceeded: len(calls), ScenariosTotal: len(ex.UnitTests),
		},
		Novelty: novelty, Environment: env, EntryPoint: entry, TimeoutS: timeout, Generator: "import:codeupdatearena",
		SpyScope: scope, HiddenSetup: arenaHiddenSetup(u, ex, api), BundleVersion: u.UpdateID, Origin: ArenaOrigin, Group: u.Package,
	}
	return &Task{Task: et, OriginalPrefix: arenaOriginalPrefix(u, ex, api), UnitTests: units}
}

// arenaOriginalPrefix is the original test bed's program before a unit
// test (CodeUpdateArena src/test_beds/test_bed.py check_unit_tests, joined
// with "\n" by src/utils/code.py concat_and_exec): the imports and the
// implementation each between wrap_code_in_short_comment's markers, the
// update statements, the solution.
func arenaOriginalPrefix(u ArenaUpdate, ex ArenaExample, api string) string {
	imports := ex.Imports
	if len(imports) == 0 {
		imports = u.Imports
	}
	wrap := func(code, comment string) string {
		return "########## Start: " + comment + " ##########\n" + code + "\n##########  End : " + comment + " ##########"
	}
	return strings.Join([]string{
		wrap(strings.Join(imports, "\n"), "Import statement(s)"),
		wrap(u.Implementation, "Updated API implementation"),
		enforceStatements(u, api),
		ex.RefSolution,
	}, "\n")
}

// writeStats writes import.json into out.
func writeStats(out string, st Stats) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(out, ImportStatsFile, append(data, '\n'))
}
