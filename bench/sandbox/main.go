// Command sandbox times sandboxed Python executions against a bare
// baseline: N runs of a trivial script and of
// `import numpy` on each backend and under `chroot ROOT python3`, run
// round-robin so load drift hits every contender alike, printing
// executions per second and the ratio to the baseline, and the mean CPU
// time and largest peak memory that each sandbox's Result reports (the
// baseline's CPU time is the child's rusage; its peak is not measured).
// Target: bwrap at least 0.7 of the baseline's rate.
//
// The chroot baseline runs Python outside any sandbox; it exists only
// here, as the yardstick, and needs root.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

func main() {
	var (
		home     = flag.String("home", defaultHome(), "novelapi data directory")
		envName  = flag.String("env", "trixie-sci", "environment")
		n        = flag.Int("n", 20, "executions per workload and contender")
		backends = flag.String("backends", "bwrap,docker", "comma-separated backends to time besides the baseline")
	)
	flag.Parse()
	if err := run(*home, *envName, *n, strings.Split(*backends, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench/sandbox:", err)
		os.Exit(1)
	}
}

func defaultHome() string {
	if h := os.Getenv("NOVELAPI_HOME"); h != "" {
		return h
	}
	c, _ := os.UserCacheDir()
	return filepath.Join(c, "novelapi")
}

type contender struct {
	name string
	run  func(ctx context.Context, src string) (usage, error)
}

// usage is what one execution reports about itself.
type usage struct {
	cpu  time.Duration
	peak int64 // bytes; 0 when not measured
}

func run(home, envName string, n int, backends []string) error {
	ctx := context.Background()
	env, err := debenv.OpenStore(home).Get(envName)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cs := []contender{{"chroot (baseline)", func(ctx context.Context, src string) (usage, error) {
		cmd := exec.CommandContext(ctx, "chroot", env.Root, "/usr/bin/python3", "-s", "-B", "-u", "-c", src)
		cmd.Env = sandbox.DefaultEnv()
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		if err != nil {
			return usage{}, fmt.Errorf("%v: %s", err, out)
		}
		return usage{cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
	}}}
	for _, b := range backends {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		r, err := sandbox.Auto(ctx, sandbox.AutoConfig{Backend: b, Log: log})
		if err != nil {
			fmt.Fprintf(os.Stderr, "skipping %s: %v\n", b, err)
			continue
		}
		cs = append(cs, contender{b, func(ctx context.Context, src string) (usage, error) {
			res, err := r.Run(ctx, sandbox.PythonSpec(env, []byte(src)))
			if err != nil {
				return usage{}, err
			}
			if res.ExitCode != 0 {
				return usage{}, fmt.Errorf("exit %d %s: %s", res.ExitCode, res.Signal, res.Stderr)
			}
			return usage{cpu: res.CPU, peak: res.PeakMem}, nil
		}})
	}
	workloads := []struct{ name, src string }{
		{"trivial", "pass\n"},
		{"import numpy", "import numpy\n"},
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("environment %s, %d executions each, sequential; load average at start: %s\n", envName, n, strings.TrimSpace(string(load)))
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tcontender\texec/s\tms/exec\tratio to baseline\tcpu ms/exec\tpeak MiB\t")
	for _, w := range workloads {
		// Warm the page cache for every contender first.
		for _, c := range cs {
			if _, err := c.run(ctx, w.src); err != nil {
				return fmt.Errorf("%s %s: %w", c.name, w.name, err)
			}
		}
		total := make([]time.Duration, len(cs))
		cpu := make([]time.Duration, len(cs))
		peak := make([]int64, len(cs))
		for i := 0; i < n; i++ {
			for j, c := range cs {
				start := time.Now()
				u, err := c.run(ctx, w.src)
				if err != nil {
					return fmt.Errorf("%s %s: %w", c.name, w.name, err)
				}
				total[j] += time.Since(start)
				cpu[j] += u.cpu
				peak[j] = max(peak[j], u.peak)
			}
		}
		base := float64(n) / total[0].Seconds()
		for j, c := range cs {
			rate := float64(n) / total[j].Seconds()
			cpuMS, peakMiB := "n/a", "n/a"
			if cpu[j] > 0 {
				cpuMS = fmt.Sprintf("%.1f", cpu[j].Seconds()*1000/float64(n))
			}
			if peak[j] > 0 {
				peakMiB = fmt.Sprintf("%.1f", float64(peak[j])/(1<<20))
			}
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.1f\t%.2f\t%s\t%s\t\n", w.name, c.name, rate, total[j].Seconds()*1000/float64(n), rate/base, cpuMS, peakMiB)
		}
	}
	load, _ = os.ReadFile("/proc/loadavg")
	tw.Flush()
	fmt.Printf("load average at end: %s\n", strings.TrimSpace(string(load)))
	return nil
}
