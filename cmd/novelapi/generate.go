package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/generate"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
)

// endpointFlags are the flags of every command that calls a model.
type endpointFlags struct {
	endpoint string
	apiKey   string
	model    string
	rps      float64
	timeout  time.Duration
}

func (f *endpointFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.endpoint, "endpoint", os.Getenv("NOVELAPI_ENDPOINT"), "OpenAI-compatible API base URL, e.g. http://127.0.0.1:8000/v1 (env NOVELAPI_ENDPOINT)")
	cmd.Flags().StringVar(&f.model, "model", os.Getenv("NOVELAPI_MODEL"), "model name sent to the endpoint (env NOVELAPI_MODEL)")
	cmd.Flags().Float64Var(&f.rps, "rps", 0, "requests per second limit (0 = unlimited)")
	cmd.Flags().DurationVar(&f.timeout, "request-timeout", llm.DefaultTimeout, "timeout of one request")
	f.apiKey = os.Getenv("NOVELAPI_API_KEY")
}

func (f *endpointFlags) client() (*llm.Client, error) {
	if f.endpoint == "" {
		return nil, usagef("no model endpoint: pass --endpoint URL or set NOVELAPI_ENDPOINT")
	}
	return llm.New(llm.Config{Endpoint: f.endpoint, APIKey: f.apiKey, Model: f.model, RequestsPerSecond: f.rps, Timeout: f.timeout})
}

func newGenerateCmd(g *globals) *cobra.Command {
	var (
		ep          endpointFlags
		tasksPath   string
		bundlesPath string
		indexDir    string
		knowledge   string
		condition   = bundles.Condition("S+E")
		cfg         generate.Config
		k           int
		sameLib     bool
		jsonOut     bool
	)
	cmd := &cobra.Command{
		Use:   "generate --tasks T --condition C --knowledge oracle|hybrid|paper|none --endpoint URL --model NAME --out predictions.jsonl",
		Short: "Generate predictions for a task pool with an OpenAI-compatible model endpoint",
		Long: `Builds the protocol's evaluation prompt for each task (knowledge from the task's own bundle,
novelapi's hybrid retrieval, the published dense-chunk baseline, or none), calls the endpoint
concurrently with retries and an optional rate limit, and appends one predictions.jsonl record per
task. A rerun resumes: tasks already in --out are skipped, failed ones are retried.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if tasksPath == "" || cfg.Out == "" {
				return usagef("generate needs --tasks and --out")
			}
			client, err := ep.client()
			if err != nil {
				return err
			}
			tasks, err := pool.LoadTasks(tasksPath, pool.LoadOptions{})
			if err != nil {
				return err
			}
			switch knowledge {
			case generate.SourceNone:
				if cmd.Flags().Changed("condition") && condition != "none" {
					return usagef("--knowledge none gives no knowledge, so --condition %s has no effect; drop one of them", condition)
				}
				cfg.Source = generate.None{}
				condition = "none"
			case generate.SourceOracle:
				if bundlesPath == "" {
					return usagef("--knowledge oracle needs --bundles FILE")
				}
				bs, _, err := bundles.ReadBundles(bundlesPath, jsonl.ReadOptions{})
				if err != nil {
					return err
				}
				cfg.Source = generate.NewOracle(bs)
			case generate.SourceHybrid, generate.SourcePaper:
				if indexDir == "" {
					return usagef("--knowledge %s needs --index DIR", knowledge)
				}
				ix, err := index.Open(indexDir, index.OpenOptions{})
				if err != nil {
					return err
				}
				defer ix.Close()
				cfg.Source = &generate.Retrieved{Index: ix, Retriever: index.Retriever(knowledge), K: k, SameLibrary: sameLib}
			default:
				return usagef("unknown --knowledge %q (valid: %v)", knowledge, generate.Sources)
			}
			cfg.Tasks, cfg.Condition, cfg.Client, cfg.Log = tasks, condition, client, g.log
			cfg.Progress = progressWriter(g)
			sum, err := generate.Run(cmd.Context(), cfg)
			if sum.Tasks == 0 && err != nil {
				return err // nothing was attempted: no summary to print
			}
			if jsonOut {
				if werr := writeJSONResult(g.stdout, sum, err); werr != nil && err == nil {
					err = werr
				}
			} else {
				fmt.Fprintf(g.stdout, "%d tasks: %d generated, %d resumed, %d failed, %d without a bundle -> %s\n",
					sum.Tasks, sum.Generated, sum.Resumed, sum.Failed, sum.NoBundle, sum.Out)
				if sum.HitRate >= 0 {
					fmt.Fprintf(g.stdout, "target API among the retrieved APIs: %.3f of generated tasks\n", sum.HitRate)
				}
			}
			return err
		},
	}
	ep.register(cmd)
	f := cmd.Flags()
	f.StringVar(&tasksPath, "tasks", "", "tasks.jsonl (protocol format)")
	f.StringVar(&bundlesPath, "bundles", "", "bundles.jsonl for --knowledge oracle")
	f.StringVar(&indexDir, "index", "", "index directory for --knowledge hybrid|paper")
	f.StringVar(&knowledge, "knowledge", "oracle", "knowledge source: oracle, hybrid, paper or none")
	f.Var(&condition, "condition", "knowledge condition (none, S_name, S, E, M, C, S+M, S+E, S+C, S+M+C, S+E+C, Full)")
	f.IntVar(&cfg.Samples, "samples", 1, "samples per task (pass@k needs n >= k)")
	f.Float64Var(&cfg.Temperature, "temperature", 0, "sampling temperature (0 = greedy)")
	f.IntVar(&cfg.MaxTokens, "max-tokens", generate.DefaultMaxTokens, "max new tokens per sample")
	f.IntVar(&cfg.Workers, "workers", 0, "concurrent requests (0 = 2 x cores)")
	f.IntVar(&k, "k", 0, "retrieved APIs (hybrid, default 3) or chunks (paper, default 5)")
	f.BoolVar(&sameLib, "same-library", false, "retrieve only from the task's library")
	f.StringVar(&cfg.Out, "out", "", "predictions.jsonl to write (appended; resumable)")
	f.BoolVar(&jsonOut, "json", false, "print the summary as JSON")
	return cmd
}
