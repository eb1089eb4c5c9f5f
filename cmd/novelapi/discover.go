package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/spf13/cobra"
)

// Default environments of the Stage-1 pairing: bookworm holds releases
// before the protocol's 2023-12-01 boundary, trixie the new ones.
const (
	defaultOldEnv = "bookworm-sci"
	defaultNewEnv = "trixie-sci"
)

func newDiscoverCmd(g *globals) *cobra.Command {
	var (
		library, oldEnv, newEnv, out, backend string
		noOld, asJSON                         bool
		diff                                  bundles.DiffOptions
		only                                  []string
	)
	cmd := &cobra.Command{
		Use:   "discover --library LIB [--old-env ENV] [--new-env ENV] [--out candidates.jsonl]",
		Short: "Stage 1: discover new and signature-modified APIs of a library",
		Long: "discover introspects the library in the old and the new environment inside the sandbox,\n" +
			"diffs the public API surfaces (docs/protocol.md §7) and writes the novel APIs as\n" +
			"candidates.jsonl (§1.6). Methods of classes are included and marked as extensions;\n" +
			"--protocol-only leaves them out.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if library == "" {
				return usagef("discover: --library is required (e.g. --library numpy)")
			}
			store := debenv.OpenStore(g.home)
			env, lib, err := envWithLibrary(store, newEnv, library)
			if err != nil {
				return err
			}
			cfg := bundles.DiscoverConfig{Library: lib.Name, Import: lib.Import, Dist: lib.Dist, Diff: diff, Logger: g.log}
			cfg.NewEnv = env
			if !noOld {
				if cfg.OldEnv, _, err = envWithLibrary(store, oldEnv, library); err != nil {
					return err
				}
			}
			if out == "" {
				out = filepath.Join(g.home, "data", lib.Name, "candidates.jsonl")
			}
			runner, err := stageRunner(cmd.Context(), backend, g)
			if err != nil {
				return err
			}
			cands, sum, err := bundles.Discover(cmd.Context(), runner, cfg)
			if err != nil {
				return err
			}
			if cands, err = bundles.SelectCandidates(cands, only); err != nil {
				return fmt.Errorf("discover --api: %w", err)
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := bundles.WriteCandidates(out, cands); err != nil {
				return fmt.Errorf("write %s: %w", out, err)
			}
			g.log.Info("candidates written", "path", out, "count", len(cands))
			if asJSON {
				return writeJSON(g.stdout, struct {
					bundles.Summary
					Out string `json:"out"`
				}{sum, out})
			}
			printDiscoverSummary(g.stdout, sum, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&library, "library", "", "library catalogue name (numpy, scipy, pandas, ...)")
	f.StringVar(&oldEnv, "old-env", defaultOldEnv, "environment with the pre-boundary release")
	f.StringVar(&newEnv, "new-env", defaultNewEnv, "environment with the new release")
	f.BoolVar(&noOld, "no-old", false, "no pre-boundary release: every API is new")
	f.StringVar(&out, "out", "", "candidates.jsonl to write (default HOME/data/LIB/candidates.jsonl)")
	f.BoolVar(&diff.ProtocolOnly, "protocol-only", false, "leave out novelapi's extension APIs: methods of classes and APIs without Python source (ufuncs, C and Cython classes)")
	f.BoolVar(&diff.KeepFiltered, "keep-filtered", false,
		"also write filtered APIs, marked extra.dropped_by; moved-only APIs are marked \"moved\" with extra.old_api_name")
	f.StringSliceVar(&diff.NewIfMovedFrom, "new-if-moved-from", nil,
		"old namespaces (comma-separated, e.g. numpy.array_api) whose APIs do not make a relocated API old:\n"+
			"an API whose only old match lies under one counts as new (default: protocol rule, every match counts).\n"+
			"For experimental modules: 1.24-era code calls numpy.linalg.norm, not numpy.array_api's vector_norm,\n"+
			"and the experimental module was a separate object")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	f.StringVar(&backend, "backend", "auto", "sandbox backend: auto, bwrap or docker")
	f.StringSliceVar(&only, "api", nil, "write only these candidates (comma-separated api_names; the summary still covers all)")
	return cmd
}

// envWithLibrary opens environment name and returns library as the
// environment holds it: its name, import and distribution names as read
// from its packages inside the environment (sandbox.Manifest.Installed).
// A manifest from before those were recorded falls back to the catalogue.
// A library the environment lacks, or that does not load in it, is an
// error saying so.
func envWithLibrary(store *debenv.Store, name, library string) (*sandbox.Environment, sandbox.InstalledLibrary, error) {
	env, err := store.Get(name)
	if err != nil {
		return nil, sandbox.InstalledLibrary{}, err
	}
	m := env.Manifest
	if il, ok := m.Library(library); ok {
		if il.Error != "" {
			return nil, il, fmt.Errorf("library %s does not load in environment %s (%s): %s", il.Name, name, m.Suite, il.Error)
		}
		return env, il, nil
	}
	if len(m.Installed) > 0 {
		return nil, sandbox.InstalledLibrary{}, fmt.Errorf("environment %s lacks library %s (it has: %s); build one with `novelapi env build --libraries %s`",
			name, library, strings.Join(m.Libraries, ", "), library)
	}
	lib, err := debenv.LookupLibrary(library)
	if err != nil {
		return nil, sandbox.InstalledLibrary{}, usagef("discover: %v", err)
	}
	if len(m.Libraries) > 0 && !slices.ContainsFunc(m.Libraries, func(s string) bool { return strings.EqualFold(s, lib.Name) }) {
		if _, ok := m.Versions[lib.Name]; !ok {
			return nil, sandbox.InstalledLibrary{}, fmt.Errorf("environment %s lacks library %s (it has: %s); build one with `novelapi env build`",
				name, lib.Name, strings.Join(m.Libraries, ", "))
		}
	}
	return env, sandbox.InstalledLibrary{Name: lib.Name, Packages: lib.Packages, Import: cmp.Or(lib.Import, lib.Name), Version: m.Versions[lib.Name]}, nil
}

func printDiscoverSummary(w io.Writer, s bundles.Summary, out string) {
	old := s.OldEnv
	if old == "" {
		old = "(none)"
	}
	fmt.Fprintf(w, "library      %s: %s %s -> %s %s\n", s.Library, old, s.OldVersion, s.NewEnv, s.NewVersion)
	fmt.Fprintf(w, "seen         %d new-env APIs (%d old-env)\n", s.Seen, s.OldSeen)
	fmt.Fprintf(w, "unchanged    %d, moved only %d\n", s.Unchanged, s.MovedOnly)
	fmt.Fprintf(w, "novel        %d added, %d signature-modified (before filters)\n", s.Added, s.ModifiedRaw)
	keys := make([]string, 0, len(s.Dropped))
	for k := range s.Dropped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  dropped    %-22s %d\n", k, s.Dropped[k])
	}
	fmt.Fprintf(w, "candidates   %d (%d new, %d modified; %d extension methods, %d without Python source) -> %s\n",
		s.Candidates, s.New, s.Modified, s.Extensions, s.Compiled, out)
	if s.NewBootstrapError != "" {
		fmt.Fprintf(w, "bootstrap failed (new): %s\n", s.NewBootstrapError)
	}
	if s.OldBootstrapError != "" {
		fmt.Fprintf(w, "bootstrap failed (old): %s\n", s.OldBootstrapError)
	}
	for _, f := range s.NewWalkFailures {
		fmt.Fprintf(w, "walk failure (new) %s: %s\n", f.Path(), f.Error)
	}
	for _, f := range s.OldWalkFailures {
		fmt.Fprintf(w, "walk failure (old) %s: %s\n", f.Path(), f.Error)
	}
}
