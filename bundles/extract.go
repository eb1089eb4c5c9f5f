package bundles

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/schollz/progressbar/v3"
)

// Defaults for ExtractConfig.
const (
	DefaultBatchSize      = 20
	DefaultExampleTimeout = 60 * time.Second
	// MaxExamples is the most examples kept per bundle (§7 "E").
	MaxExamples = 5
)

// A MechanismWriter writes source-grounded mechanism prose (M) for one API
// from its implementation (C), e.g. through an OpenAI-compatible model. It
// returns the text and a generator label such as "llm:<model>".
type MechanismWriter func(ctx context.Context, c Candidate, implementation string) (text, generator string, err error)

// ExtractConfig configures [Extract]. Callers never see it modified.
type ExtractConfig struct {
	// Env is the new-version environment the APIs are extracted in. Required.
	Env *sandbox.Environment
	// Candidates are the Stage-1 records to extract, in order.
	Candidates []Candidate
	// Out is the bundles.jsonl file to append to; APIs already in it (or in
	// its Out+".dropped.jsonl" side file) are skipped, so a killed run
	// resumes. "" means nothing is written and nothing skipped.
	Out string
	// Workers is the number of sandbox runs at a time; 0 means
	// runtime.NumCPU().
	Workers int
	// BatchSize is the number of APIs per sandbox run; 0 means DefaultBatchSize.
	BatchSize int
	// Limit stops after this many candidates still to do; 0 means all.
	Limit int
	// ExampleTimeout bounds one example's process; 0 means DefaultExampleTimeout.
	ExampleTimeout time.Duration
	// Strict applies every bundle-drop rule of docs/protocol.md §7:
	// also drop bundles without an executed or static example and bundles
	// with neither S_param nor a return type. Without it only bundles
	// without C or M are dropped.
	Strict bool
	// SkipTests leaves out the examples mined from the library's
	// installed test suite and from Tests (source "tests").
	SkipTests bool
	// Tests is a folder of the library's own test modules that it does
	// not install (a private library's tests/, see [ReadTestTree]), mined
	// before the installed suite; its examples' origins name its files by
	// Tests.Label. Nil means none.
	Tests *TestTree
	// Docs are the library's documentation pages and release notes (from
	// its Debian -doc package, see [ReadDocs]): their code blocks that
	// name an API are candidate examples, the release-note entry that
	// names it joins its M, and the older names the notes say it replaces
	// join its Provenance.Replaces ([NoteLinks]). Nil means none.
	Docs *Docs
	// ProtocolOnly extracts only the candidates the published protocol
	// lists (Extra.Extension ""), leaving out methods and APIs without
	// Python source. Without it a candidate marked [ExtensionNoSource] is
	// kept with C empty and Provenance.Components["C"] saying why it is
	// unavailable, and its S falls back to the docstring's signature line
	// and then a .pyi stub (Provenance.Components["S"] says which).
	ProtocolOnly bool
	// Mechanism, when non-nil, writes source-grounded M for APIs with C;
	// nil (or a failing call) keeps the docstring-grounded M.
	Mechanism MechanismWriter
	// Progress receives a progress bar; nil means none.
	Progress io.Writer
	// Logger receives warnings; nil means slog.Default().
	Logger *slog.Logger
}

// An ExtractSummary counts what one [Extract] call did.
type ExtractSummary struct {
	Candidates    int            `json:"candidates"`      // given
	AlreadyDone   int            `json:"already_done"`    // skipped because Out held them
	Attempted     int            `json:"attempted"`       // extracted in this call
	Written       int            `json:"written"`         // bundles produced in this call
	Dropped       map[string]int `json:"dropped"`         // reason → count, this call
	WithExecuted  int            `json:"with_executed"`   // written bundles with ≥1 executed example
	WithExample   int            `json:"with_example"`    // written bundles with ≥1 served (executed or static) example
	TotalInOut    int            `json:"total_in_out"`    // bundles in Out after the call
	ExecutedInOut int            `json:"executed_in_out"` // of those, with ≥1 executed example
}

// A Dropped records an API that produced no bundle, in Out+".dropped.jsonl".
type Dropped struct {
	APIName string `json:"api_name"`
	Reason  string `json:"reason"`
	Detail  string `json:"detail,omitempty"`
}

// Drop reasons of [Dropped].
const (
	DropResolve   = "resolve_failed" // the API could not be imported in the environment
	DropNoSource  = "no_source"      // no C (no Python source, or over MaxImplementation)
	DropNoM       = "no_mechanism"   // empty M
	DropNoExample = "no_example"     // Strict: no executed or static example
	DropNoS       = "no_signature"   // Strict: no S_param and no return type
	DropCrashed   = "crashed"        // the extraction process died on this API
)

// ExtractRules versions the rules of [Extract] whose output a saved
// bundles file depends on: bundles stamped with another version are
// extracted again (docs/changelog.md has each version's change).
const ExtractRules = 24

// extractResult is one line of py/extract.py's output.
type extractResult struct {
	APIName   string      `json:"api_name"`
	OK        bool        `json:"ok"`
	Error     *string     `json:"error"`
	Signature *string     `json:"signature"`
	SParam    []Parameter `json:"s_param"`
	Return    *string     `json:"return_type"`
	Instances []string    `json:"instances"`
	// InstanceMethods are the call forms the instance's docstring lists
	// in its Methods section (only when the examples came from it).
	InstanceMethods []string  `json:"instance_methods"`
	Examples        []Example `json:"examples"`
	Mechanism       struct {
		Text     string   `json:"text"`
		Words    int      `json:"words"`
		Sections []string `json:"sections"`
	} `json:"mechanism"`
	Implementation     string   `json:"implementation"`
	ImplementationNote string   `json:"implementation_note"`
	Helpers            []string `json:"helpers"`
	Style              string   `json:"docstring_style"`
	// SOrigin says where a compiled API's S came from: "introspected",
	// "docstring_signature", "stub:<path>" or "none"; "" for other APIs.
	SOrigin string `json:"s_origin"`
}

// Extract runs Stage 2 (docs/protocol.md §7) for cfg.Candidates in
// cfg.Env: S from the live signature and the docstring, E from the
// docstring's doctest examples, its code blocks, the documentation's code
// blocks (cfg.Docs) and the installed test suite, in that order, each
// executed in its own process inside the sandbox, M as docstring-grounded
// prose with the release-note entry that names the API, C as the source without
// docstrings plus same-module helpers; the older names the release notes
// say an API replaces are looked up once, in one sandbox run before the
// batches ([NoteLinks]; a failed run is a warning). Batches of APIs run in parallel
// sandboxes. It returns the bundles produced by this call (bundles already
// in cfg.Out are not returned) and a summary. Per-API failures are drops,
// not errors; an error means the sandbox or the output file failed.
func Extract(ctx context.Context, runner sandbox.Runner, cfg ExtractConfig) ([]Bundle, ExtractSummary, error) {
	sum := ExtractSummary{Candidates: len(cfg.Candidates), Dropped: map[string]int{}}
	if cfg.Env == nil {
		return nil, sum, errors.New("extract: no environment")
	}
	log := cmp.Or(cfg.Logger, slog.Default())
	done := map[string]bool{}
	var out *jsonl.Appender[Bundle]
	var dropOut *jsonl.Appender[Dropped]
	if cfg.Out != "" {
		var err error
		if done, err = doneAPIs(cfg.Out); err != nil {
			return nil, sum, err
		}
		if out, err = jsonl.OpenAppend[Bundle](cfg.Out); err != nil {
			return nil, sum, err
		}
		defer out.Close()
		if dropOut, err = jsonl.OpenAppend[Dropped](cfg.Out + ".dropped.jsonl"); err != nil {
			return nil, sum, err
		}
		defer dropOut.Close()
	}
	var todo []Candidate
	seen := map[string]bool{}
	for _, c := range cfg.Candidates {
		if cfg.ProtocolOnly && c.Extra.Extension != "" {
			continue
		}
		if done[c.APIName] || seen[c.APIName] {
			if done[c.APIName] {
				sum.AlreadyDone++
			}
			continue
		}
		seen[c.APIName] = true
		todo = append(todo, c)
	}
	if cfg.Limit > 0 && len(todo) > cfg.Limit {
		todo = todo[:cfg.Limit]
	}
	sum.Attempted = len(todo)
	batch := cmp.Or(cfg.BatchSize, DefaultBatchSize)
	workers := max(1, cmp.Or(cfg.Workers, runtime.NumCPU()))
	var bar *progressbar.ProgressBar
	if cfg.Progress != nil && len(todo) > 0 {
		bar = progressbar.NewOptions(len(todo), progressbar.OptionSetWriter(cfg.Progress),
			progressbar.OptionSetDescription("extract "+cfg.Env.Name), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(cfg.Progress) }))
	}

	var noteLinks map[string][]NoteLink
	if len(todo) > 0 && cfg.Docs.Notes() > 0 {
		var err error
		if noteLinks, err = NoteLinks(ctx, runner, cfg.Env, cfg.Candidates, cfg.Docs); err != nil {
			if ctx.Err() != nil {
				return nil, sum, fmt.Errorf("extract: %w", context.Cause(ctx))
			}
			log.Warn("extracting without the replacements the release notes name", "env", cfg.Env.Name, "err", err)
		}
	}
	owners := newFileOwners(cfg.Env.Root)
	jobs := make(chan []Candidate)
	var (
		mu       sync.Mutex
		bundles  []Bundle
		firstErr error
		wg       sync.WaitGroup
	)
	record := func(b *Bundle, d *Dropped) error {
		mu.Lock()
		defer mu.Unlock()
		if bar != nil {
			bar.Add(1)
		}
		if d != nil {
			sum.Dropped[d.Reason]++
			if dropOut != nil {
				return dropOut.Write(*d)
			}
			return nil
		}
		sum.Written++
		if hasStatus(b.Examples, "executed") {
			sum.WithExecuted++
		}
		if len(b.Examples) > 0 {
			sum.WithExample++
		}
		bundles = append(bundles, *b)
		if out != nil {
			return out.Write(*b)
		}
		return nil
	}
	for range workers {
		wg.Go(func() {
			for cs := range jobs {
				results, err := runBatch(ctx, runner, cfg, cs)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				for _, c := range cs {
					b, d := assemble(ctx, cfg, c, results[c.APIName], noteLinks[c.APIName], owners, log)
					if err := record(b, d); err != nil {
						mu.Lock()
						firstErr = cmp.Or(firstErr, err)
						mu.Unlock()
					}
				}
			}
		})
	}
feed:
	for i := 0; i < len(todo); i += batch {
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
		select {
		case jobs <- todo[i:min(i+batch, len(todo))]:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if bar != nil {
		bar.Finish()
	}
	if firstErr == nil && ctx.Err() != nil {
		firstErr = context.Cause(ctx)
	}
	if cfg.Out != "" {
		all, _, err := ReadBundles(cfg.Out, jsonl.ReadOptions{SkipBad: true})
		if err == nil {
			sum.TotalInOut = len(all)
			for _, b := range all {
				if hasStatus(b.Examples, "executed") {
					sum.ExecutedInOut++
				}
			}
		}
	}
	if firstErr != nil {
		return bundles, sum, fmt.Errorf("extract: %w", firstErr)
	}
	return bundles, sum, nil
}

func hasStatus(es []Example, status string) bool {
	for _, e := range es {
		if e.Status == status {
			return true
		}
	}
	return false
}

// doneAPIs returns the api_names present in path and its dropped side file.
func doneAPIs(path string) (map[string]bool, error) {
	done := map[string]bool{}
	for _, p := range []string{path, path + ".dropped.jsonl"} {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			var rec struct {
				APIName string `json:"api_name"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.APIName != "" {
				done[rec.APIName] = true
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
	}
	return done, nil
}

// runBatch extracts cs in one sandbox run; APIs the run did not finish
// (killed by a limit) are retried one per run. The map lacks APIs whose
// extraction crashed every time.
func runBatch(ctx context.Context, runner sandbox.Runner, cfg ExtractConfig, cs []Candidate) (map[string]*extractResult, error) {
	results, err := runExtract(ctx, runner, cfg, cs)
	if err != nil || len(cs) == 1 {
		return results, err
	}
	for _, c := range cs {
		if results[c.APIName] != nil || ctx.Err() != nil {
			continue
		}
		one, err := runExtract(ctx, runner, cfg, []Candidate{c})
		if err != nil {
			return results, err
		}
		if r := one[c.APIName]; r != nil {
			results[c.APIName] = r
		}
	}
	return results, nil
}

func runExtract(ctx context.Context, runner sandbox.Runner, cfg ExtractConfig, cs []Candidate) (map[string]*extractResult, error) {
	timeout := cmp.Or(cfg.ExampleTimeout, DefaultExampleTimeout)
	type api struct {
		APIName  string     `json:"api_name"`
		Kind     string     `json:"kind"`
		Docs     []DocBlock `json:"docs,omitempty"`
		Compiled bool       `json:"compiled,omitempty"`
	}
	in := struct {
		Library        string   `json:"library"`
		Bootstrap      string   `json:"bootstrap,omitempty"`
		Names          string   `json:"names,omitempty"`
		ExampleTimeout int      `json:"example_timeout"`
		MaxExamples    int      `json:"max_examples"`
		Cap            int      `json:"cap"`
		Tests          bool     `json:"tests"`
		TestDirs       []string `json:"test_dirs,omitempty"`
		APIs           []api    `json:"apis"`
	}{Library: cs[0].Library, ExampleTimeout: int(timeout / time.Second),
		MaxExamples: MaxExamples, Cap: MaxImplementation, Tests: !cfg.SkipTests, Bootstrap: Bootstrap(cs[0].APIName),
		Names: ExampleNames(cs[0].APIName)}
	for _, c := range cs {
		in.APIs = append(in.APIs, api{c.APIName, c.Kind, cfg.Docs.Blocks(c.APIName, docTries), c.Extra.Extension == ExtensionNoSource})
	}
	files := []sandbox.File{
		{Path: "extract.py", Data: script("extract.py")},
		{Path: "pyobj.py", Data: script("pyobj.py")},
		{Path: "mine.py", Data: script("mine.py")},
		{Path: "reach.py", Data: script("reach.py")},
	}
	if cfg.Tests.Modules() > 0 && !cfg.SkipTests {
		in.TestDirs = []string{sandbox.JobDir + "/" + testTreeJob}
		files = append(files, cfg.Tests.files...)
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	spec := sandbox.Spec{
		Environment: cfg.Env,
		Files:       append(files, sandbox.File{Path: "batch.json", Data: data}),
		Argv: []string{"python3", "-I", "-B", sandbox.JobDir + "/extract.py", sandbox.JobDir + "/batch.json",
			sandbox.OutDir + "/results.jsonl"},
		Env: threadEnv,
		Limits: sandbox.Limits{
			Wall:       time.Duration(len(cs))*(timeout+15*time.Second) + time.Minute,
			Memory:     4 << 30,
			PIDs:       256,
			StreamCap:  64 << 20,
			OutputKill: 256 << 20,
			TmpSize:    512 << 20,
			FileSize:   64 << 20,
			OutSize:    64 << 20,
		},
	}
	res, err := runner.Run(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("extract batch of %d in %s: %w", len(cs), cfg.Env.Name, err)
	}
	results := map[string]*extractResult{}
	for line := range bytes.SplitSeq(res.Outputs["results.jsonl"], []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r extractResult
		if json.Unmarshal(line, &r) == nil {
			results[r.APIName] = &r
		}
	}
	if len(results) < len(cs) {
		slog.Default().Debug("extract batch incomplete", "done", len(results), "of", len(cs),
			"exit", res.ExitCode, "limit", res.LimitHit, "stderr", tail(res.Stderr, 300))
	}
	return results, nil
}

// assemble turns one extraction result into a bundle or a drop record.
func assemble(ctx context.Context, cfg ExtractConfig, c Candidate, r *extractResult, links []NoteLink, owners *fileOwners, log *slog.Logger) (*Bundle, *Dropped) {
	if r == nil {
		return nil, &Dropped{APIName: c.APIName, Reason: DropCrashed, Detail: "the extraction process died or hit a limit"}
	}
	if !r.OK {
		return nil, &Dropped{APIName: c.APIName, Reason: DropResolve, Detail: deref(r.Error)}
	}
	compiled := c.Extra.Extension == ExtensionNoSource
	if r.Implementation == "" && !compiled {
		return nil, &Dropped{APIName: c.APIName, Reason: DropNoSource, Detail: r.ImplementationNote}
	}
	comps := map[string]string{"S": "introspected+docstring:" + r.Style, "C": r.ImplementationNote}
	if compiled {
		comps["S"] = cmp.Or(r.SOrigin, "introspected") + "+docstring:" + r.Style
	}
	var served []Example
	var failed []string
	for _, e := range r.Examples {
		if e.Status == StatusFailed {
			failed = append(failed, e.Reason)
			continue
		}
		if len(served) < MaxExamples {
			if e.Origin != nil && e.Origin.File != "" {
				// The Debian package that installed the file; a page of
				// a -doc package keeps the package its block named.
				if pkg := owners.owner(e.Origin.File); pkg != "" || e.Source != SourceDocs {
					e.Origin.Package = pkg
				}
				e.Origin.File = cfg.Tests.origin(e.Origin.File)
			}
			served = append(served, e)
		}
	}
	switch {
	case len(served) > 0:
		status := StatusStatic
		if hasStatus(served, StatusExecuted) {
			status = StatusExecuted
		}
		comps["E"] = strings.Join(exampleSources(served), "+") + ":" + status
	case len(failed) > 0:
		comps["E"] = "none: example failed: " + prefix(failed[0], 200)
	default:
		comps["E"] = "none: no examples found"
	}
	mech := Mechanism{Text: r.Mechanism.Text, Grounding: "docstring", References: []string{}, Generator: "docstring"}
	comps["M"] = "docstring:" + strings.Join(r.Mechanism.Sections, "+")
	if cfg.Mechanism != nil && r.Implementation != "" {
		text, gen, err := cfg.Mechanism(ctx, c, r.Implementation)
		if err != nil {
			log.Warn("model-written mechanism failed; keeping the docstring one", "api", c.APIName, "err", err)
		} else if strings.TrimSpace(text) != "" {
			mech.Text, mech.Grounding, mech.Generator = strings.TrimSpace(text), "source", gen
			comps["M"] = "source:" + gen
		}
	}
	if note, ok := cfg.Docs.Note(c.APIName, deref(c.OldVersion), c.NewVersion); ok {
		notes := prefix(note.Text, MaxNoteChars)
		mech.ChangelogNotes = &notes
		mech.Text = strings.TrimSpace(mech.Text + " " + noteSentence(note))
		if mech.Grounding == GroundingDocstring {
			mech.Grounding = GroundingChangelog
		}
		comps["M"] += "+changelog:" + cmp.Or(note.Version, "?")
	}
	if strings.TrimSpace(mech.Text) == "" {
		return nil, &Dropped{APIName: c.APIName, Reason: DropNoM, Detail: "docstring has no prose"}
	}
	if cfg.Strict && len(served) == 0 {
		return nil, &Dropped{APIName: c.APIName, Reason: DropNoExample, Detail: comps["E"]}
	}
	if cfg.Strict && len(r.SParam) == 0 && r.Return == nil {
		return nil, &Dropped{APIName: c.APIName, Reason: DropNoS}
	}
	sp := r.SParam
	if sp == nil {
		sp = []Parameter{}
	}
	for i := range sp {
		sp[i].Default = stripAddresses(sp[i].Default)
	}
	r.Signature = stripAddresses(r.Signature)
	c.Extra.OldSignature = stripAddresses(c.Extra.OldSignature)
	b := &Bundle{
		APIName: c.APIName, Library: c.Library, Domain: c.Domain, SName: c.APIName,
		SParam: sp, ReturnType: r.Return, Examples: served, Mechanism: mech,
		Implementation: r.Implementation, IsModified: c.IsModified,
		OldSignature: c.Extra.OldSignature, OldParameters: c.Extra.OldParameters,
	}
	if b.Examples == nil {
		b.Examples = []Example{}
	}
	p := &Provenance{
		Library: c.Library, Version: c.NewVersion, Suite: cfg.Env.Manifest.Suite, Environment: cfg.Env.Name,
		SourceFile: deref(c.SourceFile), Kind: c.Kind, Aliases: c.Extra.Aliases, Replaces: c.Extra.Replaces, Extension: c.Extra.Extension,
		Instances: r.Instances, InstanceMethods: r.InstanceMethods, Components: comps,
	}
	for _, l := range links {
		if !slices.Contains(p.Replaces, l.Path) {
			p.Replaces = append(slices.Clip(p.Replaces), l.Path)
			p.ReplacesNotes = append(p.ReplacesNotes, l)
		}
	}
	if c.OldVersion != nil {
		p.OldVersion = *c.OldVersion
	}
	if r.Signature != nil {
		p.Signature = *r.Signature
	}
	if raw, ok := c.Extra.Other["source_line"]; ok {
		json.Unmarshal(raw, &p.SourceLine)
	}
	b.Provenance = p
	b.SetHash()
	return b, nil
}

// noteWords bounds the release-note entry that M quotes, in words.
const noteWords = 100

// noteSentence is the release-note tier of M: "Release notes of VERSION:
// TEXT", TEXT cut to noteWords words.
func noteSentence(n ReleaseNote) string {
	words := strings.Fields(n.Text)
	text := strings.Join(words[:min(len(words), noteWords)], " ")
	if len(words) > noteWords {
		text += " ..."
	}
	if n.Version == "" {
		return "Release notes: " + text
	}
	return "Release notes of " + n.Version + ": " + text
}

// LLMMechanism returns a [MechanismWriter] that asks client for
// source-grounded mechanism prose of 200-400 words (docs/protocol.md
// §7 "M", source grounding), labelled "llm:<model>".
func LLMMechanism(client *llm.Client) MechanismWriter {
	return func(ctx context.Context, c Candidate, impl string) (string, string, error) {
		prompt := fmt.Sprintf("Explain the mechanism of the Python API %s: what it does and how it works internally, "+
			"in 200-400 words of plain prose, grounded only in the implementation below. Do not open with \"This function\".\n\n"+
			"Docstring:\n%s\n\nImplementation:\n%s", c.APIName, prefix(deref(c.Docstring), 4000), prefix(impl, 24000))
		resp, err := client.Chat(ctx, llm.Request{
			Messages:    []llm.Message{{Role: "user", Content: prompt}},
			Temperature: 0.2, MaxTokens: 800,
		})
		if err != nil {
			return "", "", err
		}
		if len(resp.Texts) == 0 {
			return "", "", errors.New("llm: no choices")
		}
		return resp.Texts[0], "llm:" + cmp.Or(resp.Model, client.Model()), nil
	}
}

// addressRE matches the memory address in CPython's default repr
// ("<_thread._local object at 0x7f3a2c1b9e40>"), which differs from one
// interpreter run to the next.
var addressRE = regexp.MustCompile(` at 0x[0-9a-fA-F]+>`)

// stripAddresses returns s with the addresses of default reprs removed
// ("<_thread._local object>"), so that two extractions of one release
// write the same bundle; nil stays nil. They made 12 of 937 bundles differ
// between two runs and moved the LSA fit fitted on them (docs/retrieval.md).
func stripAddresses(s *string) *string {
	if s == nil || !strings.Contains(*s, " at 0x") {
		return s
	}
	v := addressRE.ReplaceAllString(*s, ">")
	return &v
}
