package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/pipeline"
	"github.com/novelapi/novelapi/project"
	"github.com/novelapi/novelapi/sandbox"
)

func newUpCmd(g *globals) *cobra.Command {
	var (
		cfg                  pipeline.Config
		libs                 string
		backend              string
		httpAddr, projectDir string
		noServe              bool
		jsonOut              bool
		ep                   endpointFlags
	)
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Build everything (environments, bundles, tasks, index), print the figures and serve MCP",
		Long: `Takes a fresh machine to the main job: builds the Debian environments (by default trixie for the
old releases and sid, Debian's newest, for the new ones), discovers novel APIs (Stage 1), extracts bundles (Stage 2), builds the index and
starts the MCP server on it (stdio, or streamable HTTP with --http) at once; then, while it serves,
builds tasks and runs the C1 filter (Stages 3–4), evaluates retrieval and prints the figures (to
stderr when serving on stdio). Every stage is skipped when its output is current (the stamp beside it), so
a rerun reuses everything already built. Outputs go under $NOVELAPI_HOME.

With several libraries, serving starts once the first library's bundles are indexed, and each further
library joins the served index as its extraction completes.

A library that a suite has no package for, that does not load, or whose extraction fails is left out
and the others go on; the figures (and --json's "left_out") say which and why, and up exits 3. Only when
no library is left is it an error (exit 1). Under --json the object also has "error" and
"exit_code" whenever up does not succeed, with the figures of what was done.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			// In stdio mode stdout belongs to JSON-RPC: figures, and a
			// failure under --json, go to stderr.
			out := g.stdout
			if !noServe && httpAddr == "" {
				out = g.stderr
			}
			g.failureOut = out
			if projectDir != "" && !noServe {
				// Fail before the build, not after it.
				if err := project.CheckDir(projectDir); err != nil {
					return err
				}
			}
			runner, err := newRunner(ctx, g, backend)
			if err != nil {
				return err
			}
			cfg.Home, cfg.Runner, cfg.Log = g.home, runner, g.log
			if libs != "" {
				cfg.Libraries = strings.Split(libs, ",")
			}
			cfg.Progress = progressWriter(g)
			var client *llm.Client
			if ep.endpoint != "" && !noServe {
				if client, err = ep.client(); err != nil {
					return err
				}
			}
			// Serving starts as soon as the index is current; the task
			// stages go on meanwhile, and the figures print when they are
			// done. When serving ends, the stages still running stop
			// (they resume on the next run).
			upCtx, stopUp := context.WithCancel(ctx)
			defer stopUp()
			served := make(chan error, 1)
			serving := false
			if !noServe {
				cfg.IndexReady = func(dir string) {
					serving = true
					go func() {
						err := serveIndex(ctx, g, dir, filepath.Dir(pipeline.PathsFor(cmp.Or(cfg.WorkDir, cfg.Home)).Tasks), backend, httpAddr, projectDir, client)
						stopUp()
						served <- err
					}()
				}
			}
			sum, err := pipeline.Up(upCtx, cfg)
			left := leftOut(sum)
			var stageErr error
			switch {
			case err != nil && !serving:
				g.failure = sum
				return err
			case err != nil && upCtx.Err() == nil:
				g.log.Error("up: a stage failed after the index was served; still serving", "err", err)
				stageErr = err
				if jsonOut {
					g.jsonDone = true
					if jerr := writeJSONResult(out, sum, err); jerr != nil {
						return jerr
					}
				}
			case err != nil:
				// Serving ended first and stopped the stages still running.
			case jsonOut:
				g.jsonDone = true
				if err := writeJSONResult(out, sum, left); err != nil {
					return err
				}
			default:
				printUp(out, sum)
			}
			if noServe {
				return left
			}
			if err := <-served; err != nil {
				return err
			}
			return cmp.Or(stageErr, left)
		},
	}
	ep.register(cmd)
	f := cmd.Flags()
	f.StringVar(&libs, "libraries", "", "comma-separated libraries: catalogue names, Debian packages (python3-boltons or boltons) or presets (@wide: "+strings.Join(mustPreset("wide"), ",")+") (default numpy,scipy,pandas)")
	f.StringVar(&cfg.OldSuite, "old-suite", pipeline.DefaultOldSuite, "Debian suite of the old releases: bookworm, trixie, sid")
	f.StringVar(&cfg.NewSuite, "new-suite", pipeline.DefaultNewSuite, "Debian suite of the new releases: trixie, sid, experimental (bookworm → trixie reproduces the figures in docs/retrieval.md)")
	f.StringVar(&backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.IntVar(&cfg.Workers, "workers", 0, "concurrent sandbox runs (default: number of CPUs)")
	f.BoolVar(&cfg.SkipTasks, "skip-tasks", false, "skip tasks, call records and C1")
	f.StringSliceVar(&cfg.NewIfMovedFrom, "new-if-moved-from", nil, "old namespaces whose APIs do not make a new API old (a novelapi extension; numpy.array_api adds numpy 2's numpy.linalg.matrix_norm, vector_norm, vecdot, cross, outer, matmul, tensordot, diagonal)")
	f.BoolVar(&cfg.ProtocolOnly, "protocol-only", false, "only the APIs the published protocol lists: no methods of classes, no APIs without Python source (ufuncs, C and Cython classes)")
	f.BoolVar(&cfg.SkipC1, "skip-c1", false, "build tasks but skip call records and C1 (the longest stage; run novelapi tasks build later)")
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on ADDR (e.g. 127.0.0.1:8080) instead of stdio")
	f.StringVar(&projectDir, "project", "", "the agent's project directory: the server serves the versions it declares (as serve --project; docs/projects.md)")
	f.BoolVar(&noServe, "no-serve", false, "stop after printing the figures")
	f.BoolVar(&jsonOut, "json", false, "print the figures as JSON")
	return cmd
}

// leftOut returns the partial-success error of a summary whose libraries
// were not all processed, nil when all were.
func leftOut(s *pipeline.Summary) error {
	if s == nil || len(s.LeftOut) == 0 {
		return nil
	}
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(s.LeftOut)) {
		parts = append(parts, l+" ("+s.LeftOut[l]+")")
	}
	return &partialError{fmt.Sprintf("up: left out %d of %d libraries: %s", len(s.LeftOut), len(s.Libraries), strings.Join(parts, "; "))}
}

// serveIndex starts the MCP server over the index built by up, with the
// task pool of taskDir as evaluate's default and, with a client, the
// evaluate tool's use_model option.
func serveIndex(ctx context.Context, g *globals, indexDir, taskDir, backend, httpAddr, projectDir string, client *llm.Client) error {
	cfg := mcpserver.Config{IndexDir: indexDir, Project: projectDir, Logger: g.log}
	cfg.Eval.TasksPath = filepath.Join(taskDir, "tasks.jsonl")
	cfg.Eval.ExpectedPath = filepath.Join(taskDir, "expected_calls.jsonl")
	cfg.Eval.RunsDir = filepath.Join(g.home, "runs", "mcp")
	cfg.ReadyWait = mcpserver.DefaultReadyWait
	home, log := g.home, g.log
	cfg.Harness = func(ctx context.Context) (*evalharness.Harness, error) {
		r, err := sandbox.Auto(ctx, sandbox.AutoConfig{Backend: backend, Log: log})
		if err != nil {
			return nil, err
		}
		return evalharness.New(evalharness.Config{Runner: r, Store: debenv.OpenStore(home), Log: log})
	}
	if client != nil {
		cfg.Eval.Generate = mcpGenerator(client, indexDir)
	}
	g.log.Info("serving MCP", "index", indexDir, "http", httpAddr)
	return serve(ctx, g, cfg, httpAddr)
}

func printUp(w io.Writer, s *pipeline.Summary) {
	fmt.Fprintf(w, "novelapi up: done in %.0f s (work dir %s)\n", s.Seconds, s.Paths.WorkDir)
	fmt.Fprintf(w, "environments: %v\n", s.Envs)
	var libs []string
	for l := range s.Libraries {
		libs = append(libs, l)
	}
	sort.Strings(libs)
	fmt.Fprintf(w, "%-8s %-18s %5s %5s %6s %8s %9s %6s %6s\n", "library", "versions", "new", "mod", "no-src", "bundles", "executed", "tasks", "C1")
	for _, l := range libs {
		x := s.Libraries[l]
		fmt.Fprintf(w, "%-8s %-18s %5d %5d %6d %8d %9d %6d %6d\n", l, x.OldVersion+" -> "+x.NewVersion, x.New, x.Modified, x.Compiled, x.Bundles, x.Executed, x.Tasks, x.C1Passed)
		if x.Skipped != "" {
			fmt.Fprintf(w, "  %s left out: %s\n", l, x.Skipped)
		}
	}
	if len(s.Retrieval) > 0 {
		fmt.Fprintf(w, "retrieval (task description + context as query):\n")
		for _, r := range s.Retrieval {
			name := string(r.Retriever)
			if r.Condition != "" {
				name += "(" + r.Condition + ")"
			}
			fmt.Fprintf(w, "  %-14s n=%d hit@1 %.3f hit@5 %.3f MRR %.3f\n", name, r.N, r.HitAt1, r.HitAt5, r.MRR)
		}
		rep := index.EvalReport{Rows: s.Retrieval}
		h, okH := rep.Row(index.Hybrid, "", "")
		full, okF := rep.Row(index.Paper, string(bundles.CondFull), "")
		shared, okS := rep.Row(index.Paper, index.PaperShared, "")
		if okH && okF && okS && full.HitAt5 > 0 && shared.HitAt5 > 0 {
			fmt.Fprintf(w, "  hybrid hit@5 / paper(Full) %.2fx; / paper shared-hit (top five under each of S, S+M, S+E, Full: the paper's 960 of 1,670) %.2fx\n",
				h.HitAt5/full.HitAt5, h.HitAt5/shared.HitAt5)
		}
	}
	var stages []string
	for k, v := range s.Stages {
		stages = append(stages, k+"="+v)
	}
	sort.Strings(stages)
	fmt.Fprintf(w, "stages: %s\n", strings.Join(stages, ", "))
}

// mustPreset returns the libraries of a built-in preset.
func mustPreset(name string) []string {
	p, ok := debenv.Preset(name)
	if !ok {
		panic("no preset " + name)
	}
	return p
}
