package construct

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// LLMConfig configures GenerateTasks, the LLM task generator.
type LLMConfig struct {
	Bundles []bundles.Bundle
	Env     *sandbox.Environment // the new-release environment scenarios run in
	Runner  sandbox.Runner
	Client  *llm.Client // the generating model; required
	// Temperature of the generation call; 0 means 0.7 (docs/protocol.md §7 Stage
	// 3); an unusable answer is retried once at 0.4.
	Temperature float64
	// MaxTokens of the answer; 0 means 4096.
	MaxTokens int
	// Workers is the number of bundles in flight; 0 means GOMAXPROCS.
	Workers int
	// Wall bounds one bundle's sandbox run; 0 means 120 s.
	Wall     time.Duration
	Progress io.Writer
	Log      *slog.Logger
}

// The LLM generator's answer format (see llmPrompt).
type (
	llmAnswer struct {
		Tasks []llmTask `json:"tasks"`
	}
	llmTask struct {
		Difficulty        string            `json:"difficulty"`
		Description       string            `json:"description"`
		ContextCode       string            `json:"context_code"`
		MaskedRegion      string            `json:"masked_region"`
		ReferenceSolution string            `json:"reference_solution"`
		Scenarios         map[string]string `json:"scenarios"`
	}
	// llmBuilt is one record of py/llmgen.py's /out/llmgen.json.
	llmBuilt struct {
		Key                string   `json:"key"`
		Why                string   `json:"why"`
		ScenariosSucceeded int      `json:"scenarios_succeeded"`
		ScenariosTotal     int      `json:"scenarios_total"`
		Layers             []string `json:"layers"` // L1, L2, L3; "" when dropped
	}
)

// LLMGenerator returns the Task.Generator label of tasks written by model.
func LLMGenerator(model string) string { return "llm:" + model }

// GenerateTasks is the protocol's LLM task generation (docs/protocol.md
// §7 Stage 3), an alternative to [BuildTasks]: one call per bundle asks the
// model for an easy, a medium and a hard task, each with six scenarios
// (basic_1, basic_2, changed_input_1, changed_input_2, edge_1, edge_2).
// A task is rejected when its description contains the leaf name
// (case-insensitive), when neither its masked region nor its reference
// mentions the API, when `import <module>` + reference fails in the
// sandbox, or when fewer than 2 scenarios run. The scenarios' results give
// the three assertion layers of §4.3 (structural, comparison, edge), each
// kept only if it passes with the target and fails with both null stubs,
// and each prefixed with the monitor check block; a task with no layer
// left is rejected. Tasks are labelled Generator "llm:<model>".
//
// Deviations: a leaking description is dropped rather than sent back for a
// rewrite, failed scenarios are not retried, and when layer 1 is dropped
// the first kept layer becomes execution_test (evaluation runs only that
// field). Tasks must still pass C1 ([RecordAndFilterC1]).
func GenerateTasks(ctx context.Context, cfg LLMConfig) ([]*pool.Task, BuildSummary, error) {
	if cfg.Env == nil || cfg.Runner == nil || cfg.Client == nil {
		return nil, BuildSummary{}, errors.New("construct: Env, Runner and Client are required")
	}
	if cfg.Temperature == 0 {
		cfg.Temperature = 0.7
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 4096
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Wall <= 0 {
		cfg.Wall = 120 * time.Second
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	sum := BuildSummary{APIs: len(cfg.Bundles), ByDifficulty: map[string]int{}, ByLibrary: map[string]int{}, Skipped: map[string]int{}}
	var bar *progressbar.ProgressBar
	if cfg.Progress != nil {
		bar = progressbar.NewOptions(len(cfg.Bundles), progressbar.OptionSetWriter(cfg.Progress),
			progressbar.OptionSetDescription("tasks build (llm)"), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionOnCompletion(func() { fmt.Fprintln(cfg.Progress) }))
	}
	var (
		mu    sync.Mutex
		tasks []*pool.Task
		first error
	)
	jobs := make(chan *bundles.Bundle)
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() {
			for b := range jobs {
				got, skipped, err := generateFor(ctx, cfg, b)
				mu.Lock()
				if err != nil && ctx.Err() == nil {
					log.Warn("LLM task generation failed", "api", b.APIName, "err", err)
					sum.Skipped["generation failed"]++
					if first == nil {
						first = fmt.Errorf("generate tasks for %s: %w", b.APIName, err)
					}
				}
				sum.Examples += len(got) + len(skipped)
				for _, why := range skipped {
					sum.Skipped[skipClass(why)]++
					log.Debug("LLM task rejected", "api", b.APIName, "why", why)
				}
				tasks = append(tasks, got...)
				if bar != nil {
					bar.Add(1)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range cfg.Bundles {
		select {
		case jobs <- &cfg.Bundles[i]:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, sum, context.Cause(ctx)
	}
	if first != nil && len(tasks) == 0 {
		return nil, sum, first
	}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].TaskID < tasks[j].TaskID })
	for _, t := range tasks {
		sum.Tasks++
		sum.ByDifficulty[t.Difficulty]++
		sum.ByLibrary[t.Library]++
	}
	sum.WithExamples = len(cfg.Bundles)
	return tasks, sum, nil
}

// generateFor asks for one bundle's tasks (retrying an unusable answer
// once at T=0.4) and builds them; skipped holds the rejection reasons.
func generateFor(ctx context.Context, cfg LLMConfig, b *bundles.Bundle) ([]*pool.Task, []string, error) {
	msgs := []llm.Message{{Role: "user", Content: llmPrompt(b)}}
	var ans llmAnswer
	var err error
	for _, temp := range []float64{cfg.Temperature, 0.4} {
		var resp llm.Response
		resp, err = cfg.Client.Chat(ctx, llm.Request{Messages: msgs, Temperature: temp, MaxTokens: cfg.MaxTokens})
		if err != nil {
			return nil, nil, err
		}
		if ans, err = parseAnswer(resp.Texts[0]); err == nil {
			break
		}
	}
	if err != nil {
		return nil, []string{"unusable answer: " + err.Error()}, nil
	}
	leaf := bundles.LeafName(b.APIName)
	var (
		keep    []llmTask
		skipped []string
		input   []map[string]any
	)
	for i, t := range ans.Tasks {
		t.Difficulty = strings.ToLower(strings.TrimSpace(t.Difficulty))
		if t.ReferenceSolution == "" {
			t.ReferenceSolution = joinCode(t.ContextCode, t.MaskedRegion)
		}
		switch {
		case t.Difficulty != "easy" && t.Difficulty != "medium" && t.Difficulty != "hard":
			skipped = append(skipped, fmt.Sprintf("bad difficulty: %q", t.Difficulty))
			continue
		case strings.TrimSpace(t.Description) == "" || strings.TrimSpace(t.MaskedRegion) == "":
			skipped = append(skipped, "missing description or masked region")
			continue
		case leaks(t.Description, leaf):
			skipped = append(skipped, "description leaks the leaf name")
			continue
		case !mentions(t.MaskedRegion, b.APIName, leaf) && !mentions(t.ReferenceSolution, b.APIName, leaf):
			skipped = append(skipped, "neither masked region nor reference mentions the API")
			continue
		}
		keep = append(keep, t)
		input = append(input, map[string]any{"key": fmt.Sprint(i), "reference": t.ReferenceSolution, "scenarios": t.Scenarios})
	}
	if len(keep) == 0 {
		return nil, skipped, nil
	}
	module, _ := bundles.SplitQualname(b.APIName)
	data, err := json.Marshal(map[string]any{"api_name": b.APIName, "module": module, "tasks": input,
		"bootstrap": bundles.Bootstrap(b.APIName)})
	if err != nil {
		return nil, skipped, err
	}
	res, err := cfg.Runner.Run(ctx, sandbox.Spec{
		Environment: cfg.Env,
		Files:       []sandbox.File{{Path: "main.py", Data: llmgenPy}, {Path: "stubs.py", Data: stubsPy}, {Path: "input.json", Data: data}},
		Limits:      sandbox.Limits{Wall: cfg.Wall, Memory: 2 << 30},
	})
	if err != nil {
		return nil, skipped, err
	}
	var built []llmBuilt
	if out, ok := res.Outputs["llmgen.json"]; ok {
		if err := json.Unmarshal(out, &built); err != nil {
			return nil, skipped, fmt.Errorf("decode generator output: %w", err)
		}
	}
	if len(built) < len(keep) {
		why := "scenario runner produced nothing"
		if res.TimedOut {
			why = "scenario runner timed out"
		} else if len(res.Stderr) > 0 {
			why += ": " + lastLine(string(res.Stderr))
		}
		for range len(keep) - len(built) {
			skipped = append(skipped, why)
		}
	}
	novelty := "new"
	if b.IsModified {
		novelty = "modified"
	}
	var tasks []*pool.Task
	for i, r := range built {
		if r.Why != "" {
			skipped = append(skipped, r.Why)
			continue
		}
		t := keep[i]
		layers := make([]string, 3)
		for j := range min(len(r.Layers), 3) {
			if r.Layers[j] != "" {
				layers[j] = pool.CheckBlock(b.APIName) + r.Layers[j]
			}
		}
		exec := layers[0]
		for _, l := range layers[1:] {
			if exec == "" {
				exec = l
			}
		}
		tasks = append(tasks, &pool.Task{
			TaskID:  llmTaskID(b.APIName, t.Difficulty, t.Description),
			APIName: b.APIName, Library: b.Library, Domain: domainOf(b), Difficulty: t.Difficulty,
			Description: strings.TrimSpace(t.Description), ContextCode: strings.TrimSpace(t.ContextCode),
			MaskedRegion: strings.TrimSpace(t.MaskedRegion), ReferenceSolution: strings.TrimSpace(t.ReferenceSolution),
			TestHarness: pool.TestHarness{
				SetupCode: pool.StockMonitor(b.APIName), ExecutionTest: exec,
				ShapeTypeTest: layers[1], MockTest: layers[2], TargetAPI: b.APIName,
				GenerationMethod: "execute_then_assert", ScenariosSucceeded: r.ScenariosSucceeded, ScenariosTotal: r.ScenariosTotal,
			},
			Novelty: novelty, Environment: cfg.Env.Name, Generator: LLMGenerator(cfg.Client.Model()),
		})
	}
	return tasks, skipped, nil
}

func llmTaskID(parts ...string) string {
	h := sha1.Sum([]byte(strings.Join(parts, "\x00")))
	return "llm_" + hex.EncodeToString(h[:6])
}

func joinCode(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// mentions reports whether code names the API (its FQN or its leaf).
func mentions(code, fqn, leaf string) bool {
	return strings.Contains(code, fqn) || strings.Contains(code, leaf)
}

var jsonBlockRE = regexp.MustCompile("(?s)```(?:json)?\\s*\n(.*?)```")

// parseAnswer decodes the model's JSON task set: the whole answer, else its
// first fenced block, else the text from the first "{" to the last "}".
func parseAnswer(text string) (llmAnswer, error) {
	cands := []string{strings.TrimSpace(text)}
	if m := jsonBlockRE.FindStringSubmatch(text); m != nil {
		cands = append(cands, m[1])
	}
	if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
		cands = append(cands, text[i:j+1])
	}
	var last error
	for _, c := range cands {
		var a llmAnswer
		if err := json.Unmarshal([]byte(c), &a); err != nil {
			last = err
			continue
		}
		if len(a.Tasks) == 0 {
			last = errors.New("no tasks in the answer")
			continue
		}
		return a, nil
	}
	return llmAnswer{}, last
}

// llmPrompt is the generation request for one bundle: its Full rendering
// and, for a modified API, the old signature (§7 Stage 3 variants).
func llmPrompt(b *bundles.Bundle) string {
	leaf := bundles.LeafName(b.APIName)
	var sb strings.Builder
	sb.WriteString("You write benchmark tasks that test whether a code model can use a Python API it has never seen.\n\n")
	sb.WriteString("# API documentation\n")
	sb.WriteString(bundles.Render(b, bundles.Condition("Full")))
	sb.WriteString("\n\n")
	if b.IsModified && b.OldSignature != nil {
		sb.WriteString("This API's signature changed. The old signature was `" + *b.OldSignature +
			"`; every task must exercise what changed.\n\n")
	}
	sb.WriteString(`# What to write
Write three tasks that each require calling ` + "`" + b.APIName + "`" + `:
- easy: a direct call with simple inputs;
- medium: the API as one step of a multi-step pipeline;
- hard: a non-trivial feature built around the API.

For each task give:
- "difficulty": "easy", "medium" or "hard";
- "description": what to compute, in plain words. It must NOT contain the word "` + leaf + `" in any form;
- "context_code": imports and input data shown before the gap (no call to the API);
- "masked_region": the lines to predict, which call the API and store the answer in ` + "`result`" + `;
- "reference_solution": context_code followed by masked_region, self-contained;
- "scenarios": an object with six self-contained scripts "basic_1", "basic_2", "changed_input_1",
  "changed_input_2", "edge_1", "edge_2". Each imports what it needs, calls the API on concrete inputs
  and assigns the outcome to ` + "`result`" + `. changed_input_* use different inputs than basic_*, so the
  results differ; edge_* use boundary inputs (empty, single element, extreme values) that still work.

Answer with one JSON object and nothing else:
{"tasks": [{"difficulty": "easy", "description": "...", "context_code": "...", "masked_region": "...",
"reference_solution": "...", "scenarios": {"basic_1": "...", "basic_2": "...", "changed_input_1": "...",
"changed_input_2": "...", "edge_1": "...", "edge_2": "..."}}, ...]}
`)
	return sb.String()
}
