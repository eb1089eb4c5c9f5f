package generate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/progress"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
)

// A Record is one line of the predictions file: the protocol's
// predictions.jsonl record (§1.8; task_id, api_name, cell, samples,
// finish_reasons) plus what novelapi records about the prompt. Readers of the
// published format ignore the extra fields.
type Record struct {
	pool.Prediction
	Condition string `json:"condition"`
	Source    string `json:"knowledge_source"` // none, oracle, hybrid, paper
	Model     string `json:"model"`
	// Hits are the retrieved APIs in rank order (retrieval sources only).
	Hits []string `json:"retrieval_hits,omitempty"`
	// TargetRank is the 1-based rank of the target API among Hits; 0 when
	// absent or not retrieved.
	TargetRank     int     `json:"target_rank,omitempty"`
	KnowledgeChars int     `json:"knowledge_chars"`
	PromptSHA256   string  `json:"prompt_sha256"`
	Temperature    float64 `json:"temperature"`
}

// Config configures Run. Tasks, Source, Client and Out are required.
type Config struct {
	Tasks     []*pool.Task
	Condition bundles.Condition // "" means none
	Source    KnowledgeSource
	Client    *llm.Client
	// Samples per task; 0 means 1. Temperature 0 is greedy.
	Samples     int
	Temperature float64
	// MaxTokens per sample; 0 means DefaultMaxTokens (docs/protocol.md §2.3).
	MaxTokens int
	// Workers is the number of concurrent requests; 0 means 2×GOMAXPROCS.
	Workers int
	// Out is the predictions.jsonl path; existing records are kept and their
	// tasks skipped (resume).
	Out string
	// Progress receives a progress bar; nil means none.
	Progress io.Writer
	// Log receives per-task failures; nil means slog.Default().
	Log *slog.Logger
}

// DefaultMaxTokens is max_new_tokens of the protocol (§2.3).
const DefaultMaxTokens = 2048

// Summary reports a Run.
type Summary struct {
	Tasks     int `json:"tasks"`
	Generated int `json:"generated"` // records written by this run
	Resumed   int `json:"resumed"`   // tasks already in Out
	Failed    int `json:"failed"`    // tasks whose request failed (no record; a rerun retries them)
	// NoBundle counts tasks skipped because the oracle has no bundle for
	// their API (no record; a rerun skips them again).
	NoBundle int `json:"no_bundle"`
	// HitRate is the share of generated records whose target API was among
	// the retrieved APIs (retrieval sources only; -1 otherwise).
	HitRate float64 `json:"retrieval_hit_rate"`
	Out     string  `json:"out"`
}

// Run generates predictions for every task not yet in cfg.Out. It returns
// an error when the context is cancelled (records written so far are kept)
// or when cfg is invalid; per-task endpoint failures are counted in
// Summary.Failed and logged, and Run then returns an error wrapping the
// first of them after finishing the other tasks.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	if cfg.Source == nil || cfg.Client == nil || cfg.Out == "" {
		return Summary{}, errors.New("generate: Source, Client and Out are required")
	}
	if cfg.Condition == "" {
		cfg.Condition = bundles.Condition("none")
	}
	if cfg.Samples <= 0 {
		cfg.Samples = 1
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 2 * runtime.GOMAXPROCS(0)
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if dir := filepath.Dir(cfg.Out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return Summary{}, err
		}
	}
	done, err := doneIDs(cfg.Out)
	if err != nil {
		return Summary{}, err
	}
	w, err := jsonl.OpenAppend[Record](cfg.Out)
	if err != nil {
		return Summary{}, fmt.Errorf("open %s: %w", cfg.Out, err)
	}
	defer w.Close()

	sum := Summary{Tasks: len(cfg.Tasks), Out: cfg.Out, HitRate: -1}
	var todo []*pool.Task
	for _, t := range cfg.Tasks {
		if done[t.TaskID] {
			sum.Resumed++
			continue
		}
		todo = append(todo, t)
	}
	bar := progress.New(cfg.Progress, len(todo), "generate "+string(cfg.Condition)+"/"+cfg.Source.Name())
	var (
		mu       sync.Mutex
		firstErr error
		hits     int
		retrieve bool
	)
	var g errgroup.Group
	g.SetLimit(cfg.Workers)
	for _, t := range todo {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			rec, err := one(ctx, cfg, t)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				err = w.Write(rec)
			}
			switch {
			case errors.Is(err, ErrNoBundle):
				sum.NoBundle++
				log.Warn("task skipped", "task", t.TaskID, "err", err)
			case err != nil:
				if ctx.Err() == nil {
					sum.Failed++
					log.Warn("generate failed", "task", t.TaskID, "err", err)
					if firstErr == nil {
						firstErr = fmt.Errorf("task %s: %w", t.TaskID, err)
					}
				}
			default:
				sum.Generated++
				if rec.Hits != nil {
					retrieve = true
					if rec.TargetRank >= 1 {
						hits++
					}
				}
			}
			bar.Add(1)
			return nil
		})
	}
	g.Wait()
	if retrieve && sum.Generated > 0 {
		sum.HitRate = float64(hits) / float64(sum.Generated)
	}
	if err := ctx.Err(); err != nil {
		return sum, context.Cause(ctx)
	}
	if firstErr != nil {
		return sum, fmt.Errorf("generate: %d of %d tasks failed (rerun to retry them); first: %w", sum.Failed, len(todo), firstErr)
	}
	return sum, nil
}

func one(ctx context.Context, cfg Config, t *pool.Task) (Record, error) {
	kn, err := cfg.Source.Knowledge(ctx, t, cfg.Condition)
	if err != nil {
		return Record{}, err
	}
	prompt := bundles.Prompt(bundles.PromptInput{TaskID: t.TaskID, APIName: t.APIName, Description: t.Description, ContextCode: t.ContextCode}, kn.Text)
	resp, err := cfg.Client.Sample(ctx, []llm.Message{{Role: "user", Content: prompt}}, cfg.Samples, cfg.Temperature, cfg.MaxTokens)
	if err != nil {
		return Record{}, err
	}
	sh := sha256.Sum256([]byte(prompt))
	return Record{
		Prediction: pool.Prediction{
			TaskID: t.TaskID, APIName: t.APIName, Cell: string(cfg.Condition),
			Samples: resp.Texts, FinishReasons: resp.FinishReasons,
		},
		Condition: string(cfg.Condition), Source: cfg.Source.Name(), Model: cfg.Client.Model(),
		Hits: kn.Hits, TargetRank: kn.TargetRank, KnowledgeChars: len(kn.Text),
		PromptSHA256: hex.EncodeToString(sh[:]), Temperature: cfg.Temperature,
	}, nil
}

// doneIDs returns the task ids already recorded in path (a missing file
// holds none; a torn last line is ignored, the append writer repairs it).
func doneIDs(path string) (map[string]bool, error) {
	done := map[string]bool{}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	recs, _, err := jsonl.Read[Record](path, jsonl.ReadOptions{SkipBad: true})
	if err != nil {
		return nil, fmt.Errorf("read %s for resume: %w", path, err)
	}
	for _, r := range recs {
		done[r.TaskID] = true
	}
	return done, nil
}
