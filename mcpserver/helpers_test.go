package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/sandbox"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// fixtureBundles is the test corpus: real bundles of numpy, scipy and
// pandas APIs plus versioned pydantic, scikit-learn (import name sklearn)
// and a published bundle without provenance.
const fixtureBundles = "testdata/bundles.jsonl"

var fixture struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the shared index after the tests.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

// indexDir builds the fixture index once per test binary, with the real
// index package, and returns its directory.
func indexDir(t testing.TB) string {
	t.Helper()
	fixture.once.Do(func() {
		bs, _, err := bundles.ReadBundles(fixtureBundles, jsonl.ReadOptions{})
		if err != nil {
			fixture.err = err
			return
		}
		dir, err := os.MkdirTemp("", "mcpserver-index-")
		if err != nil {
			fixture.err = err
			return
		}
		fixture.dir = filepath.Join(dir, "index")
		_, fixture.err = index.Build(context.Background(), fixture.dir, bs, index.BuildConfig{Logger: quietLog()})
	})
	if fixture.err != nil {
		t.Fatalf("build fixture index: %v", fixture.err)
	}
	return fixture.dir
}

// serverOver starts a server over an index built, with the real index
// package, from the bundles in path (a JSONL file under testdata).
func serverOver(t testing.TB, path string, cfg mcpserver.Config) *mcpserver.Server {
	t.Helper()
	bs, _, err := bundles.ReadBundles(path, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := index.Build(t.Context(), dir, bs, index.BuildConfig{Logger: quietLog()}); err != nil {
		t.Fatalf("build index of %s: %v", path, err)
	}
	cfg.Open = func(ctx context.Context) (mcpserver.Store, error) {
		ix, err := index.Open(dir, index.OpenOptions{Logger: quietLog()})
		if err != nil {
			return nil, err
		}
		return mcpserver.NewIndexStore(ix), nil
	}
	return newServer(t, cfg)
}

// execHarness is Config.Harness as `novelapi serve` sets it: the real
// sandbox backend and an environment store, built on the first check_code
// or evaluate call. It makes a server offer those tools; tests that only
// list them or check their arguments never build it.
func execHarness(t testing.TB) func(context.Context) (*evalharness.Harness, error) {
	home := t.TempDir()
	return func(ctx context.Context) (*evalharness.Harness, error) {
		r, err := sandbox.Auto(ctx, sandbox.AutoConfig{Log: quietLog()})
		if err != nil {
			return nil, err
		}
		return evalharness.New(evalharness.Config{Runner: r, Store: debenv.OpenStore(home), Log: quietLog()})
	}
}

func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// openFixture opens the fixture index as a Store.
func openFixture(t testing.TB) func(ctx context.Context) (mcpserver.Store, error) {
	dir := indexDir(t)
	return func(ctx context.Context) (mcpserver.Store, error) {
		ix, err := index.Open(dir, index.OpenOptions{Logger: quietLog()})
		if err != nil {
			return nil, err
		}
		return mcpserver.NewIndexStore(ix), nil
	}
}

// newServer starts a server over the fixture index and waits until it is
// ready.
func newServer(t testing.TB, cfg mcpserver.Config) *mcpserver.Server {
	t.Helper()
	if cfg.Open == nil {
		cfg.Open = openFixture(t)
	}
	if cfg.Logger == nil {
		cfg.Logger = quietLog()
	}
	s, err := mcpserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// inProcess returns an initialized mcp-go client talking to s in-process.
func inProcess(t testing.TB, s *mcpserver.Server) *client.Client {
	t.Helper()
	c, _ := initialize(t, s)
	return c
}

// initialize returns an initialized mcp-go client talking to s in-process,
// and the server's answer to initialize.
func initialize(t testing.TB, s *mcpserver.Server) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpserver-test", Version: "0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	return c, res
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, c *client.Client, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", tool, args, err)
	}
	return res
}

// text returns the concatenated text content of a result.
func text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// structured decodes a result's structuredContent into v.
func structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// wantError fails unless res is a tool error whose text contains every
// substring of want.
func wantError(t testing.TB, res *mcp.CallToolResult, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got success: %s", text(res))
	}
	for _, w := range want {
		if !strings.Contains(text(res), w) {
			t.Errorf("error %q does not mention %q", text(res), w)
		}
	}
}

// wantOK fails if res is a tool error.
func wantOK(t testing.TB, res *mcp.CallToolResult) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
}

// tokens is the server's stated estimator: ceil(characters/4).
func tokens(s string) int { return (len([]rune(s)) + 3) / 4 }

// golden compares got with testdata/golden/<tool>/<name>.txt, rewriting it
// under -update.
func golden(t *testing.T, tool, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", tool, name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./mcpserver -update rewrites it):\n%s", path, diff(string(want), got))
	}
}

// diff shows the first differing lines.
func diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, w, g)
		}
	}
	return "(identical lines; trailing difference)"
}
