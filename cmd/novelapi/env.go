package main

import (
	"fmt"
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
	cmd.AddCommand(newEnvBuildCmd(g), newEnvListCmd(g), newEnvShowCmd(g), newEnvRmCmd(g), newEnvDockerCmd(g))
	return cmd
}

func newEnvBuildCmd(g *globals) *cobra.Command {
	var cfg debenv.BuildConfig
	cmd := &cobra.Command{
		Use:   "build --suite SUITE --libraries a,b [--packages x,y] [--name NAME]",
		Short: "Build (or reuse) an environment with debootstrap",
		Long: fmt.Sprintf(`Build an environment from Debian SUITE (%s) with python3 and the
Debian packages of the given libraries. Known libraries: %s.
The default name is SUITE-LIB1-LIB2. A build with the same suite and
packages as the existing environment of that name is reused.`,
			strings.Join(debenv.Suites(), ", "), strings.Join(libraryNames(), ", ")),
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
			fmt.Fprintf(g.stdout, "%s\t%s\n", env.Name, env.Root)
			return nil
		},
	}
	cmd.Flags().StringVar(&cfg.Suite, "suite", "", "Debian suite: "+strings.Join(debenv.Suites(), ", "))
	cmd.Flags().StringSliceVar(&cfg.Libraries, "libraries", nil, "comma-separated catalogue libraries, e.g. numpy,scipy")
	cmd.Flags().StringSliceVar(&cfg.Packages, "packages", nil, "comma-separated extra Debian packages")
	cmd.Flags().StringVar(&cfg.Name, "name", "", "environment name (default SUITE-LIB1-LIB2)")
	cmd.Flags().StringVar(&cfg.Mirror, "mirror", debenv.DefaultMirror, "Debian mirror URL")
	return cmd
}

func libraryNames() []string {
	var names []string
	for _, l := range debenv.Catalogue() {
		names = append(names, l.Name)
	}
	return names
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
			fmt.Fprintf(w, "packages:  %d Debian packages\nsize:      %s\nbuilt:     %s\nkey:       %s\n",
				len(m.Packages), mib(m.SizeBytes), m.BuiltAt.Format("2006-01-02 15:04:05 MST"), m.Key)
			if m.DockerImage != "" {
				fmt.Fprintf(w, "docker:    %s\n", m.DockerImage)
			}
			return nil
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
