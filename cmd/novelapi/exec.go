package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

func newExecCmd(g *globals) *cobra.Command {
	var (
		envName, backend, memory string
		timeout                  time.Duration
		asJSON                   bool
	)
	cmd := &cobra.Command{
		Use:   "exec --env NAME [--backend auto|bwrap|docker] [--timeout 10s] [--memory 1GiB] [--json] FILE.py",
		Short: "Run a Python file in a sandbox and print the result",
		Long: `Run FILE.py as /job/main.py inside environment NAME with the sandbox's
default limits (docs/sandbox.md §4.2), overriding the wall timeout (positive)
and memory (at least 16MiB, sandbox.MinMemory) when given. Prints the
program's stdout and stderr and a summary of the result, or the whole
result as JSON with --json (limits named with their units: wall_ns,
memory_bytes, ...). Exits 0 when the sandbox ran, whatever the program did.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if envName == "" {
				return usagef("exec: --env is required (see `novelapi env list`)")
			}
			var lim sandbox.Limits
			if timeout <= 0 {
				return usagef("exec: --timeout %v: want a positive duration such as 30s (default %v)", timeout, sandbox.DefaultWall)
			}
			lim.Wall = timeout
			if memory != "" {
				n, err := parseSize(memory)
				if err != nil {
					return usagef("exec: --memory %q: %v", memory, err)
				}
				if n < sandbox.MinMemory {
					return usagef("exec: --memory %q: below the sandbox's minimum of 16MiB (%d bytes)", memory, int64(sandbox.MinMemory))
				}
				lim.Memory = n
			}
			src, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("exec: %w", err)
			}
			env, err := debenv.OpenStore(g.home).Get(envName)
			if err != nil {
				return err
			}
			r, err := newRunner(cmd.Context(), g, backend)
			if err != nil {
				return err
			}
			spec := sandbox.PythonSpec(env, src)
			spec.Limits = lim
			res, err := r.Run(cmd.Context(), spec)
			if err != nil {
				return fmt.Errorf("exec %s: %w", filepath.Base(args[0]), err)
			}
			if asJSON {
				return writeJSON(g.stdout, newExecOutput(res))
			}
			printResult(g.stdout, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&envName, "env", "", "environment name (required)")
	cmd.Flags().StringVar(&backend, "backend", sandbox.BackendAuto, "sandbox backend: auto, bwrap or docker")
	cmd.Flags().DurationVar(&timeout, "timeout", sandbox.DefaultWall, "wall-clock limit, positive")
	cmd.Flags().StringVar(&memory, "memory", "", "memory limit, at least 16MiB, e.g. 512MiB or 2GiB (default 1GiB)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// execOutput is sandbox.Result with text streams and durations in seconds,
// for scripts reading `novelapi exec --json`.
type execOutput struct {
	sandbox.Result
	Stdout      string            `json:"stdout"`
	Stderr      string            `json:"stderr"`
	Outputs     map[string]string `json:"outputs,omitempty"`
	WallSeconds float64           `json:"wall_seconds"`
	CPUSeconds  float64           `json:"cpu_seconds"`
}

func newExecOutput(r sandbox.Result) execOutput {
	o := execOutput{Result: r, Stdout: string(r.Stdout), Stderr: string(r.Stderr),
		WallSeconds: r.Wall.Seconds(), CPUSeconds: r.CPU.Seconds()}
	if len(r.Outputs) > 0 {
		o.Outputs = map[string]string{}
		for k, v := range r.Outputs {
			o.Outputs[k] = string(v)
		}
	}
	return o
}

func printResult(w io.Writer, r sandbox.Result) {
	section := func(name string, data []byte, dropped int64) {
		fmt.Fprintf(w, "--- %s (%d bytes", name, len(data))
		if dropped > 0 {
			fmt.Fprintf(w, ", %d more dropped", dropped)
		}
		fmt.Fprintln(w, ") ---")
		w.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			fmt.Fprintln(w)
		}
	}
	section("stdout", r.Stdout, r.StdoutDropped)
	section("stderr", r.Stderr, r.StderrDropped)
	names := make([]string, 0, len(r.Outputs))
	for k := range r.Outputs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "--- %s/%s (%d bytes) ---\n", sandbox.OutDir, k, len(r.Outputs[k]))
	}
	if r.OutputsDropped > 0 || r.OutputsDroppedFiles > 0 {
		fmt.Fprintf(w, "--- %s: %d more bytes dropped, %d files left out (limits: %s, %d files; %s per file) ---\n",
			sandbox.OutDir, r.OutputsDropped, r.OutputsDroppedFiles, formatSize(r.Limits.OutSize), r.Limits.OutFiles, formatSize(r.Limits.StreamCap))
	}
	if r.OutFull {
		fmt.Fprintf(w, "--- %s was full: writes there past %s or %d files failed ---\n", sandbox.OutDir, formatSize(r.Limits.OutSize), r.Limits.OutFiles)
	}
	fmt.Fprintln(w, "--- result ---")
	exit := strconv.Itoa(r.ExitCode)
	if r.Signal != "" {
		exit += " (signal: " + r.Signal + ")"
	}
	limit := r.LimitHit
	if limit == "" {
		limit = "none"
		if r.Backend == sandbox.BackendDocker && r.CPU == 0 && r.PeakMem == 0 && !r.OOMKilled && !r.TimedOut && !r.OutputLimitHit {
			limit = "none seen (this Docker engine's cgroups cannot be read: no pids-limit hit is reported)"
		}
	}
	fmt.Fprintf(w, "backend %s  exit %s  limit hit %s\n", r.Backend, exit, limit)
	cpu, peak := fmt.Sprintf("%.3fs", r.CPU.Seconds()), formatSize(r.PeakMem)
	if r.CPU == 0 && r.PeakMem == 0 {
		cpu, peak = "n/a", "n/a" // not measured (Docker: a remote engine or the systemd cgroup driver)
	}
	fmt.Fprintf(w, "wall %.3fs  cpu %s  peak memory %s\n", r.Wall.Seconds(), cpu, peak)
	fmt.Fprintf(w, "limits: wall %v  memory %s  pids %d  nofile %d  fsize %s  cpu %v\n",
		r.Limits.Wall, formatSize(r.Limits.Memory), r.Limits.PIDs, r.Limits.NoFile, formatSize(r.Limits.FileSize), r.Limits.CPUTime)
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1},
}

// parseSize reads a byte count such as 512MiB, 2GiB, 1G or 1048576.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !(f > 0) {
		return 0, fmt.Errorf("want a positive size such as 512MiB or 2GiB")
	}
	if n := f * float64(mult); n < math.MaxInt64 {
		return int64(n), nil
	}
	return 0, fmt.Errorf("too large: want at most 8 EiB")
}

func formatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
