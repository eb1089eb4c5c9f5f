package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/spf13/cobra"
)

func newExtractCmd(g *globals) *cobra.Command {
	var (
		candidates, envName, backend, endpoint, model, docs string
		skipBad, asJSON                                     bool
		cfg                                                 bundles.ExtractConfig
		only                                                []string
	)
	cmd := &cobra.Command{
		Use:   "extract --candidates candidates.jsonl [--env ENV] [--out bundles.jsonl]",
		Short: "Stage 2: extract S/E/M/C knowledge bundles for discovered APIs",
		Long: "extract builds one knowledge bundle per candidate (docs/protocol.md §1.2, §7) inside\n" +
			"the environment: S from the live signature and the docstring; E from the docstring's doctest\n" +
			"examples, its code blocks, the code blocks of the library's documentation (its Debian -doc\n" +
			"package, --docs), other docstrings and its installed test suite, in that order, then the\n" +
			"examples of its own module that run it without naming it, each executed in the sandbox; M as\n" +
			"docstring-grounded prose with the release-note entry that names the API (or model-written from\n" +
			"the source with --endpoint); C as the source without docstrings plus same-module helpers.\n" +
			"An API without Python source (ufuncs, C and Cython classes) gets S from its live signature,\n" +
			"its docstring's signature line or a .pyi stub, and C marked unavailable with the reason;\n" +
			"its bundle's provenance.extension says it is no protocol candidate (no_source).\n" +
			"The output is appended to and resumable; APIs already in it are skipped.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if candidates == "" {
				return usagef("extract: --candidates is required")
			}
			cands, stats, err := bundles.ReadCandidates(candidates, jsonl.ReadOptions{SkipBad: skipBad})
			if err != nil {
				return err
			}
			if cands, err = bundles.SelectCandidates(cands, only); err != nil {
				return fmt.Errorf("extract --api: %s: %w", candidates, err)
			}
			if stats.Skipped > 0 {
				g.log.Warn("skipped malformed candidates", "file", candidates, "count", stats.Skipped)
			}
			if cfg.Env, err = debenv.OpenStore(g.home).Get(envName); err != nil {
				return err
			}
			if cfg.Out == "" {
				cfg.Out = filepath.Join(filepath.Dir(candidates), "bundles.jsonl")
			}
			if err := os.MkdirAll(filepath.Dir(cfg.Out), 0o755); err != nil {
				return err
			}
			if endpoint != "" {
				client, err := llm.New(llm.Config{Endpoint: endpoint, Model: model, APIKey: os.Getenv("NOVELAPI_API_KEY")})
				if err != nil {
					return err
				}
				cfg.Mechanism = bundles.LLMMechanism(client)
			}
			if cfg.Docs, err = extractDocs(cmd.Context(), g, cfg.Env, cands, docs); err != nil {
				return err
			}
			runner, err := stageRunner(cmd.Context(), backend, g)
			if err != nil {
				return err
			}
			cfg.Candidates = cands
			cfg.Logger = g.log
			cfg.Progress = progressWriter(g)
			_, sum, err := bundles.Extract(cmd.Context(), runner, cfg)
			if asJSON {
				if jerr := writeJSONResult(g.stdout, struct {
					bundles.ExtractSummary
					Out string `json:"out"`
				}{sum, cfg.Out}, err); jerr != nil && err == nil {
					err = jerr
				}
			} else {
				fmt.Fprintf(g.stdout, "candidates   %d (%d already done)\n", sum.Candidates, sum.AlreadyDone)
				fmt.Fprintf(g.stdout, "extracted    %d: %d bundles written, %d with an executed example, %d with a served example\n",
					sum.Attempted, sum.Written, sum.WithExecuted, sum.WithExample)
				keys := make([]string, 0, len(sum.Dropped))
				for k := range sum.Dropped {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					fmt.Fprintf(g.stdout, "  dropped    %-16s %d\n", k, sum.Dropped[k])
				}
				fmt.Fprintf(g.stdout, "output       %s: %d bundles, %d with an executed example (drops in %s.dropped.jsonl)\n",
					cfg.Out, sum.TotalInOut, sum.ExecutedInOut, filepath.Base(cfg.Out))
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&candidates, "candidates", "", "candidates.jsonl written by novelapi discover")
	f.StringVar(&envName, "env", defaultNewEnv, "environment holding the new release")
	f.StringVar(&cfg.Out, "out", "", "bundles.jsonl to append to (default: beside the candidates)")
	f.IntVar(&cfg.Workers, "workers", 0, "parallel sandbox runs (default: number of CPUs)")
	f.IntVar(&cfg.BatchSize, "batch", 0, "APIs per sandbox run (default 20)")
	f.IntVar(&cfg.Limit, "limit", 0, "extract at most N candidates not yet done (0: all)")
	f.DurationVar(&cfg.ExampleTimeout, "example-timeout", 0, "timeout of one example (default 60s)")
	f.BoolVar(&cfg.ProtocolOnly, "protocol-only", false,
		"extract only the candidates the published protocol lists: no methods, no APIs without Python source")
	f.BoolVar(&cfg.Strict, "strict", false, "apply every bundle-drop rule of the protocol (no example, no S)")
	f.BoolVar(&skipBad, "skip-bad", false, "skip malformed candidate lines instead of failing")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.StringVar(&backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.StringVar(&endpoint, "endpoint", os.Getenv("NOVELAPI_ENDPOINT"), "OpenAI-compatible endpoint for source-grounded M (optional)")
	f.StringVar(&model, "model", "", "model name for --endpoint")
	f.StringSliceVar(&only, "api", nil, "extract only these candidates (comma-separated api_names)")
	f.StringVar(&docs, "docs", "auto", "documentation to mine: auto (the library's Debian -doc package of the environment's suite), none, or a directory")
	f.BoolVar(&cfg.SkipTests, "no-tests", false, "leave out examples mined from the installed test suite")
	return cmd
}

// extractDocs returns the documentation extract mines for cands' library:
// none for "none" or no candidates, the pages under a directory, or for
// "auto" the library's -doc package, whose absence or failed download is a
// warning, not an error.
func extractDocs(ctx context.Context, g *globals, env *sandbox.Environment, cands []bundles.Candidate, docs string) (*bundles.Docs, error) {
	if docs == "none" || len(cands) == 0 {
		return nil, nil
	}
	lib := cands[0].Library
	if docs != "auto" {
		return bundles.ReadDocs(docs, docs, filepath.Base(docs), "")
	}
	d, err := bundles.LibraryDocs(ctx, debenv.OpenStore(g.home), env, lib, debenv.IndexConfig{Log: g.log})
	if err != nil {
		g.log.Warn("extracting without (some of) the library's documentation", "library", lib, "err", err)
	}
	if d == nil {
		g.log.Info("no documentation", "library", lib)
	} else {
		g.log.Info("documentation", "library", lib, "packages", d.Key(), "pages", d.Pages(), "release_notes", d.Notes())
	}
	return d, nil
}

// stageRunner returns the sandbox runner for discover and extract.
func stageRunner(ctx context.Context, backend string, g *globals) (sandbox.Runner, error) {
	return sandbox.Auto(ctx, sandbox.AutoConfig{Backend: backend, Log: g.log})
}
