package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/spf13/cobra"
)

func newEnvCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Build, list and remove sandbox environments",
		Long: `Sandbox environments are Debian root filesystems built with debootstrap,
holding python3 and the Debian packages of the requested libraries.
They live in $NOVELAPI_HOME/envs.`,
	}
	cmd.AddCommand(newEnvBuildCmd(g), newEnvResolveCmd(g), newEnvListCmd(g), newEnvShowCmd(g), newEnvRmCmd(g), newEnvDockerCmd(g))
	return cmd
}

// librariesHelp describes what --libraries takes, for every command that
// takes libraries.
func librariesHelp() string {
	return fmt.Sprintf(`Libraries are catalogue names (%s),
any Debian package (python3-boltons, or boltons for python3-boltons; a
source package such as scikit-learn), or a preset: %s.`,
		strings.Join(libraryNames(), ", "), presetHelp())
}

func presetHelp() string {
	var parts []string
	for _, p := range debenv.Presets() {
		libs, _ := debenv.Preset(p)
		parts = append(parts, fmt.Sprintf("@%s (%s)", p, strings.Join(libs, ", ")))
	}
	return strings.Join(parts, "; ")
}

func newEnvBuildCmd(g *globals) *cobra.Command {
	var (
		cfg    debenv.BuildConfig
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "build --suite SUITE --libraries a,b [--packages x,y] [--name NAME]",
		Short: "Build (or reuse) an environment with debootstrap and apt",
		Long: fmt.Sprintf(`Build an environment from Debian SUITE (%s) with python3 and the
Debian packages of the given libraries. experimental is sid with the
requested packages taken from experimental where it has them.
%s
Names are checked against the suite's package index first; an unknown one
is reported with the nearest package names. The default environment name is
SUITE-LIB1-LIB2 (a preset counts as its name: sid-wide). A build with the
same suite and packages as the existing environment of that name is reused.
A library that does not load is reported (and recorded in the manifest);
the others are kept, and the command exits non-zero.`,
			strings.Join(debenv.Suites(), ", "), librariesHelp()),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cfg.Suite == "" {
				return usagef("env build: --suite is required (one of %s)", strings.Join(debenv.Suites(), ", "))
			}
			cfg.Log = g.log
			cfg.Progress = progressWriter(g)
			env, err := debenv.OpenStore(g.home).Build(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			failed := failedLibraries(env)
			if asJSON {
				if err := writeJSONResult(g.stdout, env, failed); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(g.stdout, "%s\t%s\n", env.Name, env.Root)
				if err := printInstalled(g.stdout, env.Manifest); err != nil {
					return err
				}
			}
			return failed
		},
	}
	cmd.Flags().StringVar(&cfg.Suite, "suite", "", "Debian suite: "+strings.Join(debenv.Suites(), ", "))
	cmd.Flags().StringSliceVar(&cfg.Libraries, "libraries", nil, "comma-separated libraries: catalogue names, Debian packages or @presets, e.g. numpy,boltons or @wide")
	cmd.Flags().StringSliceVar(&cfg.Packages, "packages", nil, "comma-separated extra Debian packages")
	cmd.Flags().StringVar(&cfg.Name, "name", "", "environment name (default SUITE-LIB1-LIB2)")
	cmd.Flags().StringVar(&cfg.Mirror, "mirror", debenv.DefaultMirror, "Debian mirror URL")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the environment as JSON")
	return cmd
}

// failedLibraries is an error naming env's libraries that do not load, or
// nil.
func failedLibraries(env *sandbox.Environment) error {
	var bad []string
	for _, l := range env.Manifest.Installed {
		if l.Error != "" {
			bad = append(bad, fmt.Sprintf("%s (%s)", l.Name, l.Error))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("environment %s (%s) is built, but %d of %d libraries do not load in it: %s",
		env.Name, env.Manifest.Suite, len(bad), len(env.Manifest.Installed), strings.Join(bad, "; "))
}

// printInstalled prints a manifest's libraries as a table.
func printInstalled(w io.Writer, m sandbox.Manifest) error {
	if len(m.Installed) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LIBRARY\tPACKAGES\tDIST\tVERSION\tIMPORTS\tSTATUS")
	for _, l := range m.Installed {
		pkgs := strings.Join(l.Packages, ",")
		if l.Suite != "" {
			pkgs += " (" + l.Suite + ")"
		}
		status := "ok"
		if l.Error != "" {
			status = "FAILED: " + l.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.Name, pkgs, cmp.Or(l.Dist, "-"), cmp.Or(l.Version, "-"),
			cmp.Or(strings.Join(l.Imports, ","), "-"), status)
	}
	return tw.Flush()
}

func newEnvResolveCmd(g *globals) *cobra.Command {
	var (
		suites, libs []string
		mirror       string
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "resolve --suite S1[,S2] --libraries a,b [--json]",
		Short: "Show which Debian packages and versions libraries resolve to in suites, without building",
		Long: "resolve reads each suite's package index (downloaded once and cached in $NOVELAPI_HOME/debindex)\n" +
			"and prints, per library, its Debian package and the version each suite carries.\n" + librariesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(suites) == 0 || len(libs) == 0 {
				return usagef("env resolve: --suite and --libraries are required")
			}
			store := debenv.OpenStore(g.home)
			res, err := store.Resolve(cmd.Context(), suites, libs, debenv.IndexConfig{Mirror: mirror, Log: g.log})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, res)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "LIBRARY\tPACKAGES")
			for _, su := range suites {
				fmt.Fprintf(tw, "\t%s", strings.ToUpper(su))
			}
			fmt.Fprintln(tw)
			for _, r := range res {
				fmt.Fprintf(tw, "%s\t%s", r.Library, strings.Join(r.Packages, ","))
				for _, su := range suites {
					fmt.Fprintf(tw, "\t%s", cmp.Or(r.Versions[su], "-"))
				}
				fmt.Fprintln(tw)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			var bad []string
			for _, r := range res {
				for _, su := range suites {
					if e := r.Errors[su]; e != "" {
						bad = append(bad, e)
					}
				}
			}
			if len(bad) > 0 {
				return errors.New(strings.Join(bad, "\n"))
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&suites, "suite", nil, "comma-separated Debian suites: "+strings.Join(debenv.Suites(), ", "))
	cmd.Flags().StringSliceVar(&libs, "libraries", nil, "comma-separated libraries: catalogue names, Debian packages or @presets")
	cmd.Flags().StringVar(&mirror, "mirror", debenv.DefaultMirror, "Debian mirror URL")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the resolution as JSON")
	return cmd
}

func newEnvListCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the built environments",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			envs, err := debenv.OpenStore(g.home).List()
			if err != nil {
				return err
			}
			if asJSON {
				if envs == nil {
					envs = []*sandbox.Environment{}
				}
				return writeJSON(g.stdout, envs)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSUITE\tPYTHON\tLIBRARIES\tSIZE\tDOCKER")
			for _, e := range envs {
				m := e.Manifest
				docker := "-"
				if m.DockerImage != "" {
					docker = shortID(m.DockerImage)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, m.Suite, m.Python, libVersions(m), mib(m.SizeBytes), docker)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the environments as JSON")
	return cmd
}

func newEnvShowCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show NAME [--json]",
		Short: "Show an environment's manifest",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := debenv.OpenStore(g.home).Get(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(g.stdout, e)
			}
			m := e.Manifest
			w := g.stdout
			fmt.Fprintf(w, "name:      %s\nroot:      %s\nsuite:     %s\npython:    %s\n", e.Name, e.Root, m.Suite, m.Python)
			fmt.Fprintf(w, "libraries: %s\nrequested: %s\n", libVersions(m), strings.Join(m.Requested, " "))
			if len(m.Sources) > 0 {
				fmt.Fprintf(w, "sources:   %s\n", strings.Join(m.Sources, "; "))
			}
			if len(m.AptOptions) > 0 {
				fmt.Fprintf(w, "apt:       %s\n", strings.Join(m.AptOptions, " "))
			}
			fmt.Fprintf(w, "packages:  %d Debian packages\nsize:      %s\nbuilt:     %s\nkey:       %s\n",
				len(m.Packages), mib(m.SizeBytes), m.BuiltAt.Format("2006-01-02 15:04:05 MST"), m.Key)
			if m.DockerImage != "" {
				fmt.Fprintf(w, "docker:    %s\n", m.DockerImage)
			}
			return printInstalled(w, m)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the environment as JSON")
	return cmd
}

func newEnvRmCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove an environment",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return debenv.OpenStore(g.home).Remove(cmd.Context(), args[0])
		},
	}
}

func newEnvDockerCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "docker NAME",
		Short: "Import an environment into the Docker engine (no registry) and record the image id",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := debenv.ImportConfig{Log: g.log}
			cfg.Progress = progressWriter(g)
			id, err := debenv.OpenStore(g.home).ImportDockerWith(cmd.Context(), args[0], cfg)
			if err != nil {
				return err
			}
			fmt.Fprintln(g.stdout, id)
			return nil
		},
	}
}

// libVersions formats a manifest's libraries as "numpy 2.2.4, scipy 1.15.3".
func libVersions(m sandbox.Manifest) string {
	var parts []string
	for _, l := range m.Libraries {
		parts = append(parts, l+" "+m.Versions[l])
	}
	if len(parts) == 0 {
		keys := make([]string, 0, len(m.Versions))
		for k := range m.Versions {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			parts = append(parts, k+" "+m.Versions[k])
		}
	}
	return strings.Join(parts, ", ")
}

func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		id = id[:12]
	}
	return id
}

func libraryNames() []string {
	var names []string
	for _, l := range debenv.Catalogue() {
		names = append(names, l.Name)
	}
	return names
}
