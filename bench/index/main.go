// Command index benchmarks the retrieval index: build throughput
// with the default embedder, hybrid query latency p50/p99 at about 1k and
// 10k bundles (real bundles replicated under new names), and the resident
// memory of a process holding the largest index. It prints figures and
// their ratios to the targets (p50 <= 5 ms, p99 <= 25 ms at 10k; build >=
// 500 bundles/s).
//
// The targets are for an unloaded 2-core machine, and ours are shared, so
// every figure comes twice: wall clock, and CPU time of the process (per
// query: both legs and the garbage collection they cause, which bounds the
// query's latency on an idle machine from above since the legs run
// concurrently; per build: the bundles/s it would give if the build kept
// min(GOMAXPROCS, 2) cores busy). The 1/5/15-minute load
// averages are printed with every row.
//
//	go run ./bench/index --bundles FILE[,FILE...] [--sizes 1000,10000] [--queries 400]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// Targets of the index benchmark (docs/retrieval.md).
const (
	targetP50   = 5 * time.Millisecond
	targetP99   = 25 * time.Millisecond
	targetBuild = 500.0 // bundles/s
)

func main() {
	var (
		files   = flag.String("bundles", "index/testdata/bundles.jsonl", "comma-separated bundles.jsonl files to replicate")
		sizes   = flag.String("sizes", "1000,10000", "comma-separated index sizes (bundles)")
		nq      = flag.Int("queries", 400, "queries per size")
		hold    = flag.String("hold", "", "internal: open the index in DIR, run queries, print RSS as JSON")
		workdir = flag.String("dir", "", "work directory (default a temp dir, removed at the end)")
		cpuprof = flag.String("cpuprofile", "", "write a CPU profile of the query loops to this file")
		reuse   = flag.Bool("reuse", false, "with --dir: query the indexes already there instead of building them")
	)
	flag.Parse()
	if *hold != "" {
		if err := holdIndex(*hold); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*files, *sizes, *nq, *workdir, *cpuprof, *reuse); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(files, sizes string, nq int, workdir, cpuprof string, reuse bool) error {
	ctx := context.Background()
	var base []bundles.Bundle
	for _, f := range strings.Split(files, ",") {
		bs, _, err := bundles.ReadBundles(f, jsonl.ReadOptions{SkipBad: true})
		if err != nil {
			return err
		}
		base = append(base, bs...)
	}
	if len(base) == 0 {
		return fmt.Errorf("no bundles in %s", files)
	}
	if workdir == "" {
		d, err := os.MkdirTemp("", "novelapi-bench-index-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		workdir = d
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cores := min(runtime.GOMAXPROCS(0), 2)
	fmt.Printf("base: %d real bundles from %s; GOMAXPROCS=%d, NumCPU=%d\n", len(base), files, runtime.GOMAXPROCS(0), runtime.NumCPU())
	fmt.Printf("wall = elapsed time on this (shared) machine; cpu = CPU time of the process (build: b/s if %d cores were ours; query: both legs)\n", cores)
	fmt.Printf("%-7s %6s | %7s %7s %8s %8s | %8s %8s %8s %8s %8s | %7s | %s\n", "bundles", "units",
		"build s", "cpu s", "wall b/s", "cpu b/s", "p50 wall", "p99 wall", "p50 cpu", "p99 cpu", "mean cpu", "RSS MiB", "load 1/5/15")
	type row struct {
		n                                    int
		wallBPS, cpuBPS                      float64
		p50w, p99w, p50c, p99c, meanc, rssMB float64
	}
	var rows []row
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("bad size %q", s)
		}
		bs := replicate(base, n)
		dir := filepath.Join(workdir, fmt.Sprintf("idx-%d", n))
		runtime.GC()
		cpu0, start := processCPU(), time.Now()
		var buildS, buildCPU float64
		if !reuse {
			if _, err := index.Build(ctx, dir, bs, index.BuildConfig{Logger: quiet}); err != nil {
				return err
			}
			buildS, buildCPU = time.Since(start).Seconds(), (processCPU() - cpu0).Seconds()
		}
		ix, err := index.Open(dir, index.OpenOptions{Logger: quiet})
		if err != nil {
			return err
		}
		m := ix.Manifest()
		qs := queries(bs, nq)
		for _, q := range qs[:min(20, len(qs))] { // warm up
			ix.Search(ctx, index.Query{Text: q})
		}
		if cpuprof != "" {
			f, err := os.Create(cpuprof)
			if err != nil {
				return err
			}
			pprof.StartCPUProfile(f)
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
		wall, cpu, err := timeQueries(ctx, ix, qs)
		if cpuprof != "" {
			pprof.StopCPUProfile()
			cpuprof = "" // first size only
		}
		ix.Close()
		if err != nil {
			return err
		}
		rss, err := childRSS(dir)
		if err != nil {
			return err
		}
		r := row{n: n, wallBPS: float64(n) / buildS, cpuBPS: float64(n) / (buildCPU / float64(cores)),
			p50w: pct(wall, 50), p99w: pct(wall, 99), p50c: pct(cpu, 50), p99c: pct(cpu, 99), meanc: mean(cpu), rssMB: rss}
		fmt.Printf("%-7d %6d | %7.2f %7.2f %8.0f %8.0f | %8.2f %8.2f %8.2f %8.2f %8.2f | %7.1f | %s\n", n, m.Units,
			buildS, buildCPU, r.wallBPS, r.cpuBPS, r.p50w, r.p99w, r.p50c, r.p99c, r.meanc, rss, loadAvg())
		rows = append(rows, r)
	}
	if len(rows) > 0 {
		r := rows[len(rows)-1]
		minW, minC := r.wallBPS, r.cpuBPS
		for _, x := range rows {
			minW, minC = min(minW, x.wallBPS), min(minC, x.cpuBPS)
		}
		fmt.Printf("\nat %d bundles vs targets (ratio <= 1 meets a latency target, >= 1 meets the build target):\n", r.n)
		fmt.Printf("  %-22s %10s %10s %8s %8s\n", "", "wall", "cpu", "wall/tgt", "cpu/tgt")
		fmt.Printf("  %-22s %10.2f %10.2f %8.2f %8.2f\n", "p50 ms (target 5)", r.p50w, r.p50c, r.p50w/ms(targetP50), r.p50c/ms(targetP50))
		fmt.Printf("  %-22s %10.2f %10.2f %8.2f %8.2f\n", "p99 ms (target 25)", r.p99w, r.p99c, r.p99w/ms(targetP99), r.p99c/ms(targetP99))
		fmt.Printf("  %-22s %10.0f %10.0f %8.2f %8.2f\n", "build b/s (target 500)", minW, minC, minW/targetBuild, minC/targetBuild)
		fmt.Printf("  RSS of a process holding the index: %.1f MiB; load averages now %s\n", r.rssMB, loadAvg())
	}
	return nil
}

// timeQueries runs each query once and returns the wall and CPU
// milliseconds of each. A query's CPU time is the process's: it counts
// both legs (the vector leg runs on its own goroutine) and the garbage
// collection the query causes; nothing else runs in this process then.
func timeQueries(ctx context.Context, ix *index.Index, qs []string) (wall, cpu []float64, err error) {
	for _, q := range qs {
		c0, t0 := processCPU(), time.Now()
		if _, err := ix.Search(ctx, index.Query{Text: q}); err != nil {
			return nil, nil, err
		}
		wall = append(wall, ms(time.Since(t0)))
		cpu = append(cpu, ms(processCPU()-c0))
	}
	return wall, cpu, nil
}

// pct returns the p-th percentile (nearest rank) of xs.
func pct(xs []float64, p int) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[min(len(s)-1, len(s)*p/100)]
}

func mean(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// processCPU is the user+system CPU time of this process.
func processCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// loadAvg returns the 1, 5 and 15-minute load averages from /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], "/")
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// replicate returns n bundles: the base bundles, then copies renamed
// "<parent>.<leaf>_r<i>" (aliases dropped) so that names stay unique.
func replicate(base []bundles.Bundle, n int) []bundles.Bundle {
	out := make([]bundles.Bundle, 0, n)
	for i := 0; len(out) < n; i++ {
		b := base[i%len(base)]
		if r := i / len(base); r > 0 {
			suffix := "_r" + strconv.Itoa(r)
			b.APIName += suffix
			b.SName = b.APIName
			if b.Provenance != nil {
				p := *b.Provenance
				p.Aliases = nil
				b.Provenance = &p
			}
		}
		out = append(out, b)
	}
	return out
}

// queries returns nq queries mixing natural language (the first words of a
// mechanism text) and identifiers (a leaf name, or leaf plus a parameter).
func queries(bs []bundles.Bundle, nq int) []string {
	var out []string
	for i := 0; len(out) < nq; i++ {
		b := bs[(i*7919)%len(bs)]
		switch i % 3 {
		case 0:
			words := strings.Fields(b.Mechanism.Text)
			out = append(out, strings.Join(words[:min(12, len(words))], " ")+" "+b.Library)
		case 1:
			q := bundles.LeafName(b.APIName)
			if len(b.SParam) > 1 {
				q += " " + b.SParam[1].Name
			}
			out = append(out, q)
		default:
			out = append(out, "how do I "+strings.ToLower(strings.Join(strings.Fields(b.Mechanism.Text)[:min(8, len(strings.Fields(b.Mechanism.Text)))], " ")))
		}
	}
	return out
}

// childRSS runs this program with --hold dir and returns its VmRSS in MiB.
func childRSS(dir string) (float64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	out, err := exec.Command(exe, "--hold", dir).Output()
	if err != nil {
		return 0, fmt.Errorf("hold %s: %w", dir, err)
	}
	var r struct{ RSSMiB float64 }
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, err
	}
	return r.RSSMiB, nil
}

// holdIndex opens dir, runs a few queries (so lazily built state exists)
// and prints {"RSSMiB": ...}.
func holdIndex(dir string) error {
	ix, err := index.Open(dir, index.OpenOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer ix.Close()
	for _, q := range []string{"split an array along an axis", "read_csv dtype_backend", "cumulative sum"} {
		if _, err := ix.Search(context.Background(), index.Query{Text: q}); err != nil {
			return err
		}
	}
	runtime.GC()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return json.NewEncoder(os.Stdout).Encode(map[string]float64{"RSSMiB": kb / 1024})
		}
	}
	return fmt.Errorf("no VmRSS in /proc/self/status")
}
