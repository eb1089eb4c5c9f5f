// Command mcp benchmarks the novelapi MCP server:
// initialize + tools/list latency and search_apis round-trip p50/p99 over
// stdio and streamable HTTP against the built binary on a real index, next
// to the in-process index search time measured in the same run (the
// protocol overhead ratio). Target: stdio search p50 <= 10 ms.
//
//	go run ./bench/mcp --index DIR --bin ./novelapi [-n 300] [--json]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelapi/novelapi/index"
)

type stats struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
}

func summarize(ds []time.Duration) stats {
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return stats{N: len(ds), P50: ms(ds[len(ds)/2]), P99: ms(ds[min(len(ds)-1, len(ds)*99/100)])}
}

type result struct {
	Index       string  `json:"index"`
	APIs        int     `json:"apis"`
	InProcess   stats   `json:"in_process_search"`
	StdioInit   float64 `json:"stdio_initialize_tools_list_ms"`
	Stdio       stats   `json:"stdio_search_apis"`
	HTTPInit    float64 `json:"http_initialize_tools_list_ms"`
	HTTP        stats   `json:"http_search_apis"`
	StdioRatio  float64 `json:"stdio_overhead_ratio"`
	HTTPRatio   float64 `json:"http_overhead_ratio"`
	TargetMetMs float64 `json:"target_stdio_p50_ms"`
	TargetMet   bool    `json:"target_met"`
}

func main() {
	dir := flag.String("index", "", "index directory (required)")
	bin := flag.String("bin", "novelapi", "novelapi binary")
	n := flag.Int("n", 300, "search calls per transport")
	asJSON := flag.Bool("json", false, "print JSON")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "mcp bench: --index is required")
		os.Exit(2)
	}
	if err := run(*dir, *bin, *n, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "mcp bench:", err)
		os.Exit(1)
	}
}

func run(dir, bin string, n int, asJSON bool) error {
	ctx := context.Background()
	ix, err := index.Open(dir, index.OpenOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	names := ix.Names()
	var queries []string
	for i := range n {
		name := names[i%len(names)]
		if i%3 == 2 { // some prose: the leaf's words
			name = strings.ReplaceAll(name[strings.LastIndexByte(name, '.')+1:], "_", " ") + " example"
		}
		queries = append(queries, name)
	}
	r := result{Index: dir, APIs: len(names), TargetMetMs: 10}

	var ds []time.Duration
	for _, q := range queries {
		t0 := time.Now()
		if _, err := ix.Search(ctx, index.Query{Text: q, K: 5}); err != nil {
			return err
		}
		ds = append(ds, time.Since(t0))
	}
	r.InProcess = summarize(ds)
	ix.Close()

	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil)
	measure := func(t sdk.Transport) (float64, stats, error) {
		t0 := time.Now()
		cs, err := client.Connect(ctx, t, nil)
		if err != nil {
			return 0, stats{}, err
		}
		defer cs.Close()
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return 0, stats{}, err
		}
		init := float64(time.Since(t0).Microseconds()) / 1000
		// Warm up (the index loads in the background).
		for range 3 {
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_apis", Arguments: map[string]any{"query": queries[0]}}); err != nil {
				return 0, stats{}, err
			}
		}
		var ds []time.Duration
		for _, q := range queries {
			t0 := time.Now()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_apis", Arguments: map[string]any{"query": q}})
			if err != nil {
				return 0, stats{}, err
			}
			if res.IsError {
				return 0, stats{}, fmt.Errorf("search_apis %q: tool error", q)
			}
			ds = append(ds, time.Since(t0))
		}
		return init, summarize(ds), nil
	}

	home, err := os.MkdirTemp("", "mcp-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	env := append(os.Environ(), "NOVELAPI_HOME="+home)
	cmd := exec.Command(bin, "serve", "--index", dir, "--no-exec", "-q")
	cmd.Env, cmd.Stderr = env, os.Stderr
	if r.StdioInit, r.Stdio, err = measure(&sdk.CommandTransport{Command: cmd}); err != nil {
		return fmt.Errorf("stdio: %w", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	hcmd := exec.Command(bin, "serve", "--index", dir, "--no-exec", "-q", "--http", addr)
	hcmd.Env, hcmd.Stderr = env, os.Stderr
	if err := hcmd.Start(); err != nil {
		return err
	}
	defer func() { hcmd.Process.Signal(os.Interrupt); hcmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("http server on %s not ready", addr)
		}
	}
	if r.HTTPInit, r.HTTP, err = measure(&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}); err != nil {
		return fmt.Errorf("http: %w", err)
	}
	r.StdioRatio = r.Stdio.P50 / r.InProcess.P50
	r.HTTPRatio = r.HTTP.P50 / r.InProcess.P50
	r.TargetMet = r.Stdio.P50 <= r.TargetMetMs

	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Printf("index %s: %d APIs, %d queries per transport\n", dir, r.APIs, n)
	fmt.Printf("%-28s %10s %10s %10s\n", "", "p50 ms", "p99 ms", "overhead")
	fmt.Printf("%-28s %10.2f %10.2f %10s\n", "index.Search in-process", r.InProcess.P50, r.InProcess.P99, "1.0x")
	fmt.Printf("%-28s %10.2f %10.2f %9.1fx\n", "search_apis over stdio", r.Stdio.P50, r.Stdio.P99, r.StdioRatio)
	fmt.Printf("%-28s %10.2f %10.2f %9.1fx\n", "search_apis over HTTP", r.HTTP.P50, r.HTTP.P99, r.HTTPRatio)
	fmt.Printf("initialize + tools/list: stdio %.1f ms (incl. process start), HTTP %.1f ms\n", r.StdioInit, r.HTTPInit)
	fmt.Printf("target stdio p50 <= %.0f ms: %v\n", r.TargetMetMs, r.TargetMet)
	return nil
}
