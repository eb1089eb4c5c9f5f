// Command index benchmarks the retrieval index (issue 4): build throughput
// with the default embedder, hybrid query latency p50/p99 at about 1k and
// 10k bundles (real bundles replicated under new names), and the resident
// memory of a process holding the largest index. It prints figures and
// their ratios to the targets (p50 <= 5 ms, p99 <= 25 ms at 10k; build >=
// 500 bundles/s).
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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// Targets from issue 4.
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
	)
	flag.Parse()
	if *hold != "" {
		if err := holdIndex(*hold); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*files, *sizes, *nq, *workdir); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(files, sizes string, nq int, workdir string) error {
	ctx := context.Background()
	var base []bundles.Bundle
	for _, f := range strings.Split(files, ",") {
		bs, _, err := bundles.ReadBundles(f, bundles.ReadOptions{SkipBad: true})
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
	fmt.Printf("base: %d real bundles from %s; GOMAXPROCS=%d\n", len(base), files, runtime.GOMAXPROCS(0))
	fmt.Printf("%-7s %9s %10s %8s %9s %9s %9s %9s\n", "bundles", "units", "build s", "b/s", "p50 ms", "p99 ms", "mean ms", "RSS MiB")
	var last string
	var rows [][]float64
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("bad size %q", s)
		}
		bs := replicate(base, n)
		dir := filepath.Join(workdir, fmt.Sprintf("idx-%d", n))
		start := time.Now()
		m, err := index.Build(ctx, dir, bs, index.BuildConfig{Logger: quiet})
		if err != nil {
			return err
		}
		buildS := time.Since(start).Seconds()
		ix, err := index.Open(dir, index.OpenOptions{Logger: quiet})
		if err != nil {
			return err
		}
		qs := queries(bs, nq)
		for _, q := range qs[:min(20, len(qs))] { // warm up
			ix.Search(ctx, index.Query{Text: q})
		}
		lat := make([]time.Duration, 0, len(qs))
		for _, q := range qs {
			t := time.Now()
			if _, err := ix.Search(ctx, index.Query{Text: q}); err != nil {
				return err
			}
			lat = append(lat, time.Since(t))
		}
		ix.Close()
		slices.Sort(lat)
		var sum time.Duration
		for _, l := range lat {
			sum += l
		}
		p50, p99 := lat[len(lat)/2], lat[min(len(lat)-1, len(lat)*99/100)]
		rss, err := childRSS(dir)
		if err != nil {
			return err
		}
		fmt.Printf("%-7d %9d %10.2f %8.0f %9.2f %9.2f %9.2f %9.1f\n", n, m.Units, buildS, float64(n)/buildS,
			ms(p50), ms(p99), ms(sum/time.Duration(len(lat))), rss)
		rows = append(rows, []float64{float64(n), float64(n) / buildS, ms(p50), ms(p99), rss})
		last = dir
	}
	_ = last
	if len(rows) > 0 {
		r := rows[len(rows)-1]
		fmt.Printf("\nat %d bundles vs targets (ratio < 1 meets a latency target, > 1 meets the build target):\n", int(r[0]))
		fmt.Printf("  p50   %.2f ms / %.0f ms = %.2f\n", r[2], ms(targetP50), r[2]/ms(targetP50))
		fmt.Printf("  p99   %.2f ms / %.0f ms = %.2f\n", r[3], ms(targetP99), r[3]/ms(targetP99))
		minBuild := r[1]
		for _, x := range rows {
			minBuild = min(minBuild, x[1])
		}
		fmt.Printf("  build %.0f b/s / %.0f b/s = %.2f (slowest size)\n", minBuild, targetBuild, minBuild/targetBuild)
		fmt.Printf("  RSS of a process holding the index: %.1f MiB\n", r[4])
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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
