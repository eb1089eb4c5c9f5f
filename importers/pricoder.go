package importers

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/pool"
)

// A PriCoderRecord is one task of a PriCoder-style pool (NdonnxEval,
// NumbaEval): a HumanEval-shaped task whose solution must use every API in
// APIList.
type PriCoderRecord struct {
	ID                string   `json:"id"`
	Task              string   `json:"task"`   // natural-language statement
	Prompt            string   `json:"prompt"` // imports, def header, docstring
	CanonicalSolution string   `json:"canonical_solution"`
	Test              string   `json:"test"`
	APIList           []string `json:"api_list"` // fully qualified required APIs
}

// A PriCoderDoc documents one API of a PriCoder-style pool.
type PriCoderDoc struct {
	Qualname  string `json:"qualname"`
	Signature string `json:"signature"` // "(x, axis=None)" or "name(x, ...)"
	Docstring string `json:"docstring"`
	Code      string `json:"code"` // source
}

// PriCoderConfig configures [ImportPriCoder].
type PriCoderConfig struct {
	TasksPath string // tasks JSONL (required)
	DocsPath  string // API docs JSONL (required)
	Library   string // library key of bundles and tasks (required)
	// Environment is the environment the tasks name; "" means the
	// library's default (evalharness.DefaultEnvNames).
	Environment string
	// Domain is the protocol domain (§1.2) of bundles and tasks; "" leaves
	// it empty.
	Domain string
	// Version is recorded as Provenance.Version; "" leaves it empty.
	Version string
}

// PriCoderOrigin is Provenance.Origin and Task.Origin of imported
// PriCoder-style pools.
const PriCoderOrigin = "pricoder"

// ImportPriCoder reads a PriCoder-style pool and writes into out one bundle
// per documented API (S from signature, M from docstring with grounding
// "docstring", C from code) and one task per record: api_name is the first
// API of api_list, spy_apis the others, so the monitor wraps every one of
// them and a call to any counts (pool.Task.SpyAPIs). The program is the
// module as written, prompt + canonical solution joined exactly, then the
// record's test and, when the prompt defines a function, check(<entry
// point>) as in HumanEval ([priCoderTask]). Malformed lines fail with a *jsonl.ParseError;
// records whose api_list is empty or names an undocumented API are listed
// in skipped.jsonl.
func ImportPriCoder(out string, cfg PriCoderConfig) (Stats, error) {
	if cfg.TasksPath == "" || cfg.DocsPath == "" || cfg.Library == "" {
		return Stats{}, errors.New("importers: PriCoderConfig needs TasksPath, DocsPath and Library")
	}
	docs, err := readRecords[PriCoderDoc](cfg.DocsPath)
	if err != nil {
		return Stats{}, err
	}
	recs, err := readRecords[PriCoderRecord](cfg.TasksPath)
	if err != nil {
		return Stats{}, err
	}
	var bs []bundles.Bundle
	documented := map[string]bool{}
	for i, d := range docs {
		if d.Qualname == "" {
			return Stats{}, &jsonl.ParseError{Path: cfg.DocsPath, Line: i + 1, Err: errors.New("qualname is empty")}
		}
		documented[d.Qualname] = true
		bs = append(bs, priCoderBundle(d, cfg))
	}
	var (
		tasks    []*Task
		expected []*pool.ExpectedCalls
		skipped  []Skipped
		seen     = map[string]bool{}
	)
	for i, r := range recs {
		line := i + 1
		if r.ID == "" || strings.TrimSpace(r.Test) == "" {
			return Stats{}, &jsonl.ParseError{Path: cfg.TasksPath, Line: line, Err: errors.New("record needs id and test")}
		}
		id := "pc_" + safeID(cfg.Library+"_"+r.ID)
		if seen[id] {
			return Stats{}, &jsonl.ParseError{Path: cfg.TasksPath, Line: line, Err: fmt.Errorf("duplicate id %q", r.ID)}
		}
		seen[id] = true
		if len(r.APIList) == 0 {
			skipped = append(skipped, Skipped{Line: line, ID: r.ID, TaskID: id, Reason: "api_list is empty"})
			continue
		}
		var missing []string
		for _, a := range r.APIList {
			if !documented[a] {
				missing = append(missing, a)
			}
		}
		if len(missing) > 0 {
			skipped = append(skipped, Skipped{Line: line, ID: r.ID, TaskID: id, Reason: "api_list names undocumented APIs: " + strings.Join(missing, ", ")})
			continue
		}
		desc := strings.TrimSpace(r.Task)
		if desc == "" {
			desc = r.Prompt
		}
		t := priCoderTask(id, cfg.Library, cfg.Environment, desc, r, r.APIList)
		t.Domain = cfg.Domain
		t.Origin, t.Group = PriCoderOrigin, cfg.Library
		tasks = append(tasks, t)
		expected = append(expected, noRecords(t.Task, PriCoderOrigin))
	}
	if err := writePool(out, bs, tasks, expected, skipped); err != nil {
		return Stats{}, err
	}
	st := Stats{Origin: PriCoderOrigin, Input: cfg.TasksPath, Bundles: len(bs), Tasks: len(tasks), Skipped: len(skipped),
		PerGroup: map[string]int{cfg.Library: len(tasks)}, OutDir: out}
	return st, writeStats(out, st)
}

func priCoderBundle(d PriCoderDoc, cfg PriCoderConfig) bundles.Bundle {
	b := bundles.Bundle{
		APIName: d.Qualname, Library: cfg.Library, Domain: cfg.Domain, SName: d.Qualname,
		Implementation: strings.TrimRight(d.Code, "\n"),
		Mechanism: bundles.Mechanism{
			Text: strings.TrimSpace(d.Docstring), Grounding: bundles.GroundingDocstring, Generator: "docstring",
		},
		Provenance: &bundles.Provenance{
			Library: cfg.Library, Version: cfg.Version, Origin: PriCoderOrigin,
			Components: map[string]string{
				"S": "import:pricoder:signature", "M": "import:pricoder:docstring", "C": "import:pricoder:code",
			},
		},
	}
	if sig, ok := ParseSignature(d.Signature); ok {
		b.SParam, b.ReturnType = sig.Params, sig.ReturnType
	} else if strings.TrimSpace(d.Signature) != "" {
		b.Provenance.Components["S"] = "import:pricoder:none (signature unparseable)"
	}
	if len([]rune(b.Implementation)) > bundles.MaxImplementation {
		b.Implementation = ""
		b.Provenance.Components["C"] = "dropped: longer than bundles.MaxImplementation"
	}
	if b.Mechanism.Text == "" {
		b.Mechanism.Grounding = ""
		delete(b.Provenance.Components, "M")
	}
	b.Provenance.Hash = b.ComputeHash()
	return b
}

// priCoderTask builds the task of a PriCoder-style record. The prompt is
// cut where the completion's code starts ([splitPrompt]); the reference is
// the rest of the prompt followed by the canonical solution, joined
// exactly. When the prompt defines a function, the test calls
// check(<entry point>) and the spy counts the calls made inside it
// (pool.SpyScopeEntryPoint, [CheckHead]); a prompt without a function is a
// module whose code itself calls the APIs, so the spy counts the calls the
// completion makes (the protocol's check block, pool.CheckBlock) and the
// test runs after it as written, with check() when it defines a check
// function.
func priCoderTask(id, lib, env, description string, r PriCoderRecord, apis []string) *Task {
	entry := entryPoint("", r.Prompt)
	test := r.Test
	switch {
	case entry != "":
		test += "\n" + checkCall(entry)
	case checkDef.MatchString(r.Test):
		test += "\n" + checkCall("")
	}
	ctx, rest := splitPrompt(r.Prompt, entry)
	et := &pool.Task{
		TaskID: id, Library: lib, Description: strings.TrimSpace(description),
		ContextCode: ctx, MaskedRegion: rest + r.CanonicalSolution, ReferenceSolution: r.Prompt + r.CanonicalSolution,
		EntryPoint: entry, Environment: env, Generator: "import:" + lib,
		APIName: apis[0], SpyAPIs: apis[1:],
		TestHarness: pool.TestHarness{
			SetupCode: pool.StockMonitor(apis[0]), TargetAPI: apis[0],
			GenerationMethod: "import:" + lib, ScenariosSucceeded: 1, ScenariosTotal: 1,
		},
	}
	if entry != "" {
		et.SpyScope = pool.SpyScopeEntryPoint
		et.TestHarness.ExecutionTest = CheckHead(apis[0]) + "\n" + test
	} else {
		et.SpyScope = pool.SpyScopeCompletion
		et.TestHarness.ExecutionTest = pool.CheckBlock(apis[0]) + "\n" + test
	}
	return &Task{Task: et, OriginalPrefix: r.Prompt + r.CanonicalSolution, UnitTests: []string{test}}
}

// checkDef matches a test's top-level check function without parameters.
var checkDef = regexp.MustCompile(`(?m)^def\s+check\s*\(\s*\)`)
