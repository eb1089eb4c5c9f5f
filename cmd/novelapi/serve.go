package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/sandbox"
)

// newServeCmd is `novelapi serve`: the MCP server on stdio (default) or
// streamable HTTP + legacy SSE (--http). In stdio mode nothing but JSON-RPC
// goes to stdout; logs go to stderr.
func newServeCmd(g *globals) *cobra.Command {
	var (
		cfg      mcpserver.Config
		httpAddr string
		backend  string
		noExec   bool
		maxBody  string
		ep       endpointFlags
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve novel-API documentation, code checking and evaluation over MCP",
		Long: `Serve the MCP server for coding agents (Claude Code, Claude Desktop, Cursor, VS Code).

By default it speaks JSON-RPC on stdin/stdout (the agent starts the process);
--http ADDR serves streamable HTTP at /mcp and the legacy SSE transport at /sse.
The index opens in the background: initialize and tools/list answer at once.`,
		Example: `  claude mcp add novelapi -- novelapi serve --index ~/.cache/novelapi/index
  novelapi serve --index DIR --http 127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.IndexDir == "" {
				cfg.IndexDir = filepath.Join(g.home, "index")
			}
			if cfg.Eval.RunsDir == "" {
				cfg.Eval.RunsDir = filepath.Join(g.home, "runs", "mcp")
			}
			cfg.Logger = g.log
			n, err := parseSize(maxBody)
			if err != nil {
				return usagef("serve: --max-body %q: %v", maxBody, err)
			}
			cfg.MaxBodyBytes = n
			if !noExec {
				switch backend {
				case "", sandbox.BackendAuto, sandbox.BackendBwrap, sandbox.BackendDocker:
				default:
					return usagef("serve: unknown --backend %q (want auto, bwrap or docker)", backend)
				}
				cfg.Harness = codeHarness(cmd.Context(), g, backend)
			}
			if ep.endpoint != "" {
				client, err := ep.client()
				if err != nil {
					return err
				}
				cfg.Eval.Generate = mcpGenerator(client, cfg.IndexDir)
			}
			return serve(cmd.Context(), g, cfg, httpAddr)
		},
	}
	ep.register(cmd)
	f := cmd.Flags()
	f.StringVar(&cfg.IndexDir, "index", "", "index directory (default $NOVELAPI_HOME/index)")
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP (/mcp) and legacy SSE (/sse) on ADDR, e.g. 127.0.0.1:8080, instead of stdio")
	f.StringVar(&backend, "backend", "auto", "sandbox backend for check_code and evaluate: auto, bwrap or docker")
	f.StringVar(&maxBody, "max-body", fmt.Sprintf("%dMiB", mcpserver.DefaultMaxBodyBytes>>20), "with --http: the largest request body taken (e.g. 16MiB); a longer one is refused with 413 before it is read")
	f.BoolVar(&noExec, "no-exec", false, "do not run code: check_code and evaluate are not offered (also the case when no sandbox backend works here)")
	f.StringVar(&cfg.Eval.TasksPath, "tasks", "", "default task pool (tasks.jsonl) for evaluate")
	f.StringVar(&cfg.Eval.ExpectedPath, "expected", "", "reference call records (expected_calls.jsonl) for evaluate")
	f.StringVar(&cfg.Eval.RunsDir, "runs", "", "directory for evaluate's runs (default $NOVELAPI_HOME/runs/mcp)")
	f.IntVar(&cfg.Eval.Workers, "workers", 0, "tasks evaluated at once by evaluate (default: CPUs)")
	f.StringVar(&cfg.Project, "project", "", "the agent's project directory: search_apis and get_api serve the versions its requirements*.txt, pyproject.toml, uv.lock, poetry.lock or virtual environment declare (docs/projects.md)")
	f.StringArrayVar(&cfg.ReadRoots, "allow-path", nil, "directory whose files evaluate may read when an agent names tasks_path or predictions_path, besides $NOVELAPI_HOME, the runs directory and the --tasks directory (repeatable)")
	f.DurationVar(&cfg.ReadyWait, "ready-wait", mcpserver.DefaultReadyWait, "how long a tool call waits for the index to load before answering \"not ready\"")
	return cmd
}

// sandboxWait bounds how long serve waits at startup for the sandbox probe
// before offering check_code and evaluate anyway (the first call then waits
// for the probe). A probe takes tens of milliseconds; a Docker engine slow
// to answer can take seconds.
const sandboxWait = 2 * time.Second

// codeHarness probes the sandbox backend in the background and returns the
// harness function for mcpserver.Config, or nil when no backend works here:
// the server then offers no check_code or evaluate and its instructions say
// that code execution is off, instead of tools that fail on every call. It
// waits at most sandboxWait for the probe, which ends by itself (each
// backend bounds its own probe).
func codeHarness(ctx context.Context, g *globals, backend string) func(context.Context) (*evalharness.Harness, error) {
	var (
		r   sandbox.Runner
		err error
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r, err = sandbox.Auto(ctx, sandbox.AutoConfig{Backend: backend, Log: g.log})
	}()
	select {
	case <-done:
		if err != nil {
			g.log.Warn("code execution is off: check_code and evaluate are not offered (--no-exec silences this)", "reason", err)
			return nil
		}
	case <-time.After(sandboxWait):
		g.log.Info("sandbox probe still running; check_code and evaluate will wait for it", "after", sandboxWait)
	}
	home, log := g.home, g.log
	return func(ctx context.Context) (*evalharness.Harness, error) {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if err != nil {
			return nil, err
		}
		return evalharness.New(evalharness.Config{Runner: r, Store: debenv.OpenStore(home), Log: log})
	}
}

// serve runs the server until ctx ends (or stdin closes in stdio mode).
func serve(ctx context.Context, g *globals, cfg mcpserver.Config, httpAddr string) error {
	if cfg.ReadyWait == 0 {
		cfg.ReadyWait = -time.Nanosecond // flag given as 0: do not wait
	}
	// Agents may name files for evaluate only under the data dir, the runs
	// dir, the task pool's dir and --allow-path (mcpserver.Config.ReadRoots).
	cfg.ReadRoots = append(cfg.ReadRoots, g.home)
	if cfg.Open == nil && cfg.IndexDir != "" {
		if _, err := os.Stat(cfg.IndexDir); err != nil {
			g.log.Warn("no index: tools will answer that it is missing until the server is restarted over a built index",
				"dir", cfg.IndexDir, "build with", "novelapi index build --bundles FILE --index "+cfg.IndexDir, "or", "novelapi up")
		}
	}
	s, err := mcpserver.New(cfg)
	if err != nil {
		return err
	}
	defer s.Close()
	if httpAddr != "" {
		return s.ServeHTTP(ctx, httpAddr, nil)
	}
	return s.ServeStdio(ctx, g.stdin, g.stdout)
}
