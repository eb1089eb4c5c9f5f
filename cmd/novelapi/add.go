package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/pipeline"
)

func newAddCmd(g *globals) *cobra.Command {
	var (
		cfg     pipeline.AddConfig
		backend string
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "add PATH",
		Short: "Add a private library (source tree, wheel, sdist) to the served index",
		Long: `add makes a library that Debian does not ship available to agents: a source tree with a
pyproject.toml, setup.cfg or setup.py, a wheel (*.whl), an sdist (*.tar.gz, *.zip) or an installed tree
(a directory with the library's *.dist-info). It is copied, never built or downloaded, into a layer over a
Debian base environment; its declared dependencies must be private libraries added before or Debian
packages of the base's suite. Every public API is served (novelty private), or with --old (or --old-rev)
only what is new or changed since that version. The bundles go into the served index as a new
generation: a running novelapi serve answers from it on its next call. See docs/private.md.`,
		Example: `  novelapi add ./mylib                          # a source tree, over sid
  novelapi add dist/mylib-2.0-py3-none-any.whl --env trixie-sci
  novelapi add ./mylib --rev v2.0 --old-rev v1.0   # what changed between two git tags
  novelapi add ./mylib --version 2.1.dev3          # a version setuptools-scm or versioneer computes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			runner, err := newRunner(ctx, g, backend)
			if err != nil {
				return err
			}
			cfg.Home, cfg.Path, cfg.Runner, cfg.Log = g.home, args[0], runner, g.log
			cfg.IndexDir = indexDirOr(g, cfg.IndexDir)
			cfg.Progress = progressWriter(g)
			res, err := pipeline.Add(ctx, cfg)
			if err != nil {
				g.failure = res // what was done, for --json
				return err
			}
			if jsonOut {
				return writeJSON(g.stdout, res)
			}
			printAdd(g.stdout, res)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.Rev, "rev", "", "git revision of the source tree PATH to add (default: the working tree)")
	f.StringVar(&cfg.OldPath, "old", "", "an earlier version of the library (tree, wheel, sdist): serve only what is new or changed since it")
	f.StringVar(&cfg.OldRev, "old-rev", "", "git revision of the earlier version (of --old, or of PATH when --old is not given)")
	f.StringVar(&cfg.Version, "version", "", "the version of a source tree whose version is dynamic (setuptools-scm, versioneer, hatch-vcs), when no version file or git tag gives it")
	f.StringVar(&cfg.OldVersion, "old-version", "", "the same for the earlier version (--old, --old-rev)")
	f.StringVar(&cfg.Env, "env", "", "base environment to layer over (its Debian packages must cover the library's dependencies)")
	f.StringVar(&cfg.Suite, "suite", "", "Debian suite of a base built for the library's dependencies, when --env is not given (default sid)")
	f.StringVar(&cfg.IndexDir, "index", "", "index directory (default $NOVELAPI_HOME/index)")
	f.IntVar(&cfg.Workers, "workers", 0, "concurrent sandbox runs (default: CPU count)")
	f.BoolVar(&cfg.SkipTasks, "no-tasks", false, "do not build the task pool from the library's executed examples")
	f.StringVar(&backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.BoolVar(&jsonOut, "json", false, "print the result as JSON")
	return cmd
}

// printAdd prints what add did, for a person.
func printAdd(w io.Writer, r *pipeline.AddResult) {
	what := "whole library (novelty private)"
	if r.OldVersion != "" {
		what = "diff against " + r.OldVersion
	}
	from := ""
	if r.VersionFrom != "" {
		from = ", version from " + r.VersionFrom
	}
	fmt.Fprintf(w, "added %s %s (%s%s) from %s\n", r.Library, r.Version, r.Kind, from, r.Source)
	fmt.Fprintf(w, "  environment  %s (layer over %s)\n", r.Env, r.Base)
	if len(r.Debian)+len(r.Private) > 0 {
		fmt.Fprintf(w, "  dependencies Debian: %s; private: %s\n", orNone(r.Debian), orNone(r.Private))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  NOTE: %s\n", n)
	}
	fmt.Fprintf(w, "  APIs         %d served, %s; %d with an executed example\n", r.Bundles, what, r.Executed)
	if r.Tasks != "" {
		fmt.Fprintf(w, "  tasks        %d built, %d pass C1 (%s)\n", r.TasksBuilt, r.C1Passed, r.Tasks)
	}
	fmt.Fprintf(w, "  index        %s, generation %s (a running server answers from it on its next call)\n", r.IndexDir, r.Generation)
	fmt.Fprintf(w, "  took         %.1fs\n", r.Seconds)
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func newRmCmd(g *globals) *cobra.Command {
	var (
		cfg     pipeline.RemoveConfig
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "rm LIB[==VERSION]",
		Short: "Remove a private library added with add from the served index",
		Long: `rm takes a private library (every version, or LIB==VERSION) out of the served index as a new
generation (a running novelapi serve stops serving it on its next call), out of the registry of added
libraries, and deletes its layered environments. A library another private library depends on is refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Library, cfg.Version, _ = strings.Cut(args[0], "==")
			cfg.Home, cfg.Log = g.home, g.log
			cfg.IndexDir = indexDirOr(g, cfg.IndexDir)
			res, err := pipeline.Remove(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			if jsonOut {
				return writeJSON(g.stdout, res)
			}
			fmt.Fprintf(g.stdout, "removed %s %s: %d bundle(s) out of the index (generation %s)", res.Library,
				strings.Join(res.Versions, ", "), res.Bundles, res.Generation)
			if len(res.Envs) > 0 {
				fmt.Fprintf(g.stdout, "; environments removed: %s", strings.Join(res.Envs, ", "))
			}
			fmt.Fprintln(g.stdout)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.IndexDir, "index", "", "index directory (default $NOVELAPI_HOME/index)")
	f.BoolVar(&cfg.KeepEnvs, "keep-envs", false, "keep the library's layered environments")
	f.BoolVar(&jsonOut, "json", false, "print the result as JSON")
	return cmd
}
