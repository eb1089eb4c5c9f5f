package generate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
)

// SweepConfig configures Sweep. Tasks, Conditions, Sources, Client,
// Harness and Out are required.
type SweepConfig struct {
	Tasks []*pool.Task
	// Expected holds the reference call records by task id (§1.4).
	Expected   map[string]*pool.ExpectedCalls
	Conditions []bundles.Condition
	// Sources are the knowledge sources compared (oracle, hybrid, paper);
	// each gets the directory Out/<Name()>/.
	Sources []KnowledgeSource
	Client  *llm.Client
	Harness evalharness.Evaluator
	// Out receives one cell per source and condition,
	// Out/<source>/<condition>/{predictions.jsonl,results.jsonl,summary.json,eval_meta.json},
	// and the comparison report Out/report.md and Out/report.html.
	Out string
	// Samples, Temperature and MaxTokens are passed to Run (0: greedy, one
	// sample, DefaultMaxTokens).
	Samples     int
	Temperature float64
	MaxTokens   int
	// GenWorkers and EvalWorkers are the concurrency of generation and
	// evaluation; 0 selects each one's default.
	GenWorkers, EvalWorkers int
	// Backend names the sandbox backend for eval_meta.json.
	Backend  string
	Progress io.Writer
	Log      *slog.Logger
}

// A SweepCell is the outcome of one (source, condition) cell.
type SweepCell struct {
	Source    string              `json:"knowledge"`
	Condition string              `json:"condition"`
	Dir       string              `json:"dir"`
	Generate  Summary             `json:"generate"`
	Eval      evalharness.Summary `json:"eval"`
}

// SweepSummary reports Sweep: the cells in run order and the report files.
type SweepSummary struct {
	Cells      []SweepCell `json:"cells"`
	ReportMD   string      `json:"report_md"`
	ReportHTML string      `json:"report_html"`
}

// Sweep runs generation (Run) and evaluation (evalharness.Run) for every
// knowledge source × condition into Out/<source>/<condition>/ and writes
// one comparison report over them with evalharness.ReportSweep: pass@1 per
// condition, oracle vs retrieved (the paper's main table, RQ1/RQ2). The
// oracle source is recorded as evalharness.SourceOracle; a single retrieval
// source as evalharness.SourceRetrieved (so the report shows the
// retrieved − oracle gap); with several retrieval sources each keeps its
// own name. The none condition's prompt has no knowledge, so its
// predictions are generated once and copied to the other sources' cells.
// Every step resumes, so a rerun after an interruption continues where it
// stopped; a cell whose generation failed for some tasks is still
// evaluated on the others, and the first such failure is returned after
// the report is written; the report's main table then compares every cell
// on the tasks all cells scored, and lists each cell's own n apart.
func Sweep(ctx context.Context, cfg SweepConfig) (SweepSummary, error) {
	if len(cfg.Tasks) == 0 || len(cfg.Conditions) == 0 || len(cfg.Sources) == 0 || cfg.Client == nil || cfg.Harness == nil || cfg.Out == "" {
		return SweepSummary{}, errors.New("generate: sweep needs Tasks, Conditions, Sources, Client, Harness and Out")
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	retrieval := 0
	for _, s := range cfg.Sources {
		if s.Name() != SourceOracle {
			retrieval++
		}
	}
	var (
		sum      SweepSummary
		dirs     []string
		firstErr error
		nonePred string
	)
	for _, src := range cfg.Sources {
		srcDir := filepath.Join(cfg.Out, src.Name())
		dirs = append(dirs, srcDir)
		label := src.Name()
		switch {
		case label == SourceOracle:
			label = evalharness.SourceOracle
		case retrieval == 1:
			label = evalharness.SourceRetrieved
		}
		for _, c := range cfg.Conditions {
			if err := ctx.Err(); err != nil {
				return sum, context.Cause(ctx)
			}
			cell := SweepCell{Source: src.Name(), Condition: string(c), Dir: filepath.Join(srcDir, string(c))}
			if err := os.MkdirAll(cell.Dir, 0o755); err != nil {
				return sum, err
			}
			pred := filepath.Join(cell.Dir, "predictions.jsonl")
			if c == bundles.Condition("none") && nonePred != "" {
				if err := copyIfMissing(nonePred, pred); err != nil {
					return sum, err
				}
			}
			log.Info("sweep cell", "knowledge", src.Name(), "condition", c, "dir", cell.Dir)
			g, err := Run(ctx, Config{
				Tasks: cfg.Tasks, Condition: c, Source: src, Client: cfg.Client,
				Samples: cfg.Samples, Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens, Workers: cfg.GenWorkers,
				Out: pred, Progress: cfg.Progress, Log: log,
			})
			cell.Generate = g
			if err != nil {
				if ctx.Err() != nil {
					return sum, err
				}
				if firstErr == nil {
					firstErr = fmt.Errorf("cell %s/%s: %w", src.Name(), c, err)
				}
			}
			if c == bundles.Condition("none") && nonePred == "" && err == nil {
				nonePred = pred
			}
			preds, err := pool.LoadPredictions(pred)
			if err != nil {
				return sum, err
			}
			if len(preds) == 0 {
				sum.Cells = append(sum.Cells, cell)
				continue
			}
			cell.Eval, err = evalharness.Run(ctx, evalharness.RunConfig{
				Tasks: cfg.Tasks, Expected: cfg.Expected, Predictions: preds, OutDir: cell.Dir,
				Workers: cfg.EvalWorkers, Condition: string(c), Source: label, Harness: cfg.Harness,
				Backend: cfg.Backend, PredictionsPath: pred, Progress: cfg.Progress, Log: log,
			})
			if err != nil {
				return sum, fmt.Errorf("evaluate cell %s/%s: %w", src.Name(), c, err)
			}
			sum.Cells = append(sum.Cells, cell)
		}
	}
	if err := evalharness.ReportSweep(dirs, cfg.Out); err != nil {
		return sum, err
	}
	sum.ReportMD = filepath.Join(cfg.Out, pool.ReportMDFile)
	sum.ReportHTML = filepath.Join(cfg.Out, pool.ReportHTML)
	return sum, firstErr
}

// copyIfMissing copies src to dst unless dst exists.
func copyIfMissing(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return atomicfile.Write(dst, data, 0o644)
}
