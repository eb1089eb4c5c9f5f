package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelapi/novelapi/mcpserver"
)

var binary struct {
	once sync.Once
	path string
	err  error
}

// novelapiBinary builds cmd/novelapi once per test binary.
func novelapiBinary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "novelapi-bin-")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "novelapi")
		out, err := exec.Command("go", "build", "-o", binary.path, "github.com/novelapi/novelapi/cmd/novelapi").CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// serveCmd is `novelapi serve` over the fixture index, without sandboxes.
func serveCmd(t testing.TB, extra ...string) *exec.Cmd {
	cmd := exec.Command(novelapiBinary(t), append([]string{"serve", "--index", indexDir(t), "--no-exec"}, extra...)...)
	cmd.Env = append(os.Environ(), "NOVELAPI_HOME="+t.TempDir())
	return cmd
}

func sdkClient() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "novelapi-e2e", Version: "0"}, nil)
}

func sdkText(res *sdk.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// exerciseAllTools calls every tool, resource and prompt of a server
// that runs no code (--no-exec, or no sandbox) through an independent client implementation and
// checks the answers: the tools that run code are not offered, and the
// instructions say so.
func exerciseAllTools(t *testing.T, cs *sdk.ClientSession) {
	ctx := t.Context()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Annotations == nil || tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint {
			t.Errorf("%s: destructive hint not explicitly false", tool.Name)
		}
	}
	if want := []string{"get_api", "list_libraries", "render_condition", "search_apis"}; !slices.Equal(slices.Sorted(slices.Values(names)), want) {
		t.Errorf("tools: %v, want %v (no check_code or evaluate without code execution)", names, want)
	}
	if ins := cs.InitializeResult().Instructions; strings.Contains(ins, "check_code(") || !strings.Contains(ins, "Code execution is off") {
		t.Errorf("instructions without code execution:\n%s", ins)
	}
	callOK := func(name string, args map[string]any, want ...string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		txt := sdkText(res)
		if res.IsError {
			t.Fatalf("%s: tool error %s", name, txt)
		}
		for _, w := range want {
			if !strings.Contains(txt, w) {
				t.Errorf("%s(%v) lacks %q:\n%s", name, args, w, txt)
			}
		}
		return txt
	}
	callErr := func(name string, args map[string]any, want string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: protocol error %v, want a tool error", name, err)
		}
		if !res.IsError || !strings.Contains(sdkText(res), want) {
			t.Errorf("%s(%v) = %q (isError %v), want a tool error with %q", name, args, sdkText(res), res.IsError, want)
		}
	}
	callOK("search_apis", map[string]any{"query": "read_csv dtype_backend"}, "### 1. pandas.read_csv", "handle: novelapi://api/pandas.read_csv@2.2.3")
	callOK("search_apis", map[string]any{"question": "model_dump", "libraryName": "pydantic", "version": "1.10.13"}, "FALLBACK")
	callOK("get_api", map[string]any{"api_name": "numpy.lib._shape_base_impl.unstack", "components": []string{"S", "C"}}, "API: numpy.unstack", "Implementation source:")
	callOK("list_libraries", nil, "| numpy | 2.2.4 |")
	callOK("render_condition", map[string]any{"api_name": "numpy.unstack", "condition": "S"}, "API: numpy.unstack\n\nParameters:")
	callErr("search_apis", map[string]any{"query": 7}, "query must be a string")
	callErr("get_api", map[string]any{"api_name": "numpy.unstak"}, "numpy.unstack")

	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "novelapi://api/pandas.read_csv"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "API: pandas.read_csv") {
		t.Errorf("resource: %v %v", rr, err)
	}
	rr, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcpserver.LibrariesURI})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `"library":"pydantic"`) {
		t.Errorf("libraries resource: %v %v", rr, err)
	}
	pr, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcpserver.PromptName, Arguments: map[string]string{"task": "sum along an axis"}})
	if err != nil || len(pr.Messages) != 1 {
		t.Errorf("prompt: %v %v", pr, err)
	}
}

// The built binary over stdio, driven by the official Go SDK.
func TestE2E_StdioBinary(t *testing.T) {
	if stderr := exerciseBinary(t, serveCmd(t)); !strings.Contains(stderr, "index ready") {
		t.Errorf("stderr lacks the log line \"index ready\":\n%s", stderr)
	}
}

// exerciseBinary runs exerciseAllTools against the server cmd starts, over
// stdio, and returns what the server wrote on stderr.
func exerciseBinary(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := sdkClient().Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exerciseAllTools(t, cs)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	return stderr.String()
}

// Without --no-exec on a host where no sandbox backend works (bwrap not on
// PATH, no Docker engine at DOCKER_HOST), serve does not offer the tools
// that run code, its instructions say code execution is off, and its log
// says why.
func TestE2E_StdioBinaryNoSandbox(t *testing.T) {
	cmd := exec.Command(novelapiBinary(t), "serve", "--index", indexDir(t))
	cmd.Env = append(os.Environ(), "NOVELAPI_HOME="+t.TempDir(), "PATH="+t.TempDir(),
		"DOCKER_HOST=unix://"+filepath.Join(t.TempDir(), "no-docker.sock"))
	stderr := exerciseBinary(t, cmd)
	if !strings.Contains(stderr, "code execution is off") || !strings.Contains(stderr, "bwrap") {
		t.Errorf("stderr does not say why code execution is off:\n%s", stderr)
	}
}

// T22: over stdio, every byte on stdout is JSON-RPC — through startup, a
// bundle load, a failing call, a malformed line and shutdown.
func TestE2E_StdioStdoutIsOnlyJSONRPC(t *testing.T) {
	cmd := serveCmd(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_api","arguments":{"api_name":"numpy.unstack"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_apis","arguments":{"query":["not","a","string"]}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`this is not json`,
		`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	ids := map[float64]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", sc.Text())
			continue
		}
		if id, ok := msg["id"].(float64); ok {
			ids[id] = true
		}
	}
	for _, id := range []float64{1, 2, 3, 4, 5, 6} {
		if !ids[id] {
			t.Errorf("no response to request %v; stdout:\n%s", id, out)
		}
	}
	if !strings.Contains(string(out), `"isError":true`) || !strings.Contains(string(out), "query must be a string") {
		t.Errorf("the bad call did not yield a tool error:\n%s", out)
	}
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// The built binary with --http, over streamable HTTP and legacy SSE.
func TestE2E_HTTPBinary(t *testing.T) {
	addr := freeAddr(t)
	cmd := serveCmd(t, "--http", addr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve --http did not exit cleanly on SIGINT: %v\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("serve --http did not stop within 10s of SIGINT")
		}
	})
	base := "http://" + addr
	waitHealthy(t, base)
	for _, tr := range []struct {
		name string
		t    sdk.Transport
	}{
		{"Streamable", &sdk.StreamableClientTransport{Endpoint: base + mcpserver.PathMCP}},
		{"SSE", &sdk.SSEClientTransport{Endpoint: base + mcpserver.PathSSE}},
	} {
		t.Run(tr.name, func(t *testing.T) {
			cs, err := sdkClient().Connect(t.Context(), tr.t, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			exerciseAllTools(t, cs)
		})
	}
}

func waitHealthy(t testing.TB, base string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + mcpserver.PathHealth)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never became healthy", base)
}

// Load: a few hundred concurrent calls over streamable HTTP on loopback,
// from several sessions, bounded; every one is answered correctly.
func TestLoad_ConcurrentHTTPCalls(t *testing.T) {
	s := newServer(t, mcpserver.Config{})
	h, closeFn := s.Handler()
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer closeFn(context.Background())

	queries := map[string]string{ // exact identifiers: top-1 is certain (T13)
		"numpy.unstack": "numpy.unstack", "numpy.cumulative_sum": "numpy.cumulative_sum",
		"read_csv dtype_backend": "pandas.read_csv", "scipy.differentiate.derivative": "scipy.differentiate.derivative",
		"pandas.Series.case_when": "pandas.Series.case_when", "sklearn.metrics.d2_log_loss_score": "sklearn.metrics.d2_log_loss_score",
	}
	var qs []string
	for q := range queries {
		qs = append(qs, q)
	}
	const sessions, perSession, inFlight = 8, 40, 32
	var css []*sdk.ClientSession
	for range sessions {
		cs, err := sdkClient().Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: ts.URL + mcpserver.PathMCP}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		css = append(css, cs)
	}
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	var ok, bad atomic.Int64
	start := time.Now()
	for i := range sessions * perSession {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			q := qs[i%len(qs)]
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			res, err := css[i%sessions].CallTool(ctx, &sdk.CallToolParams{Name: "search_apis", Arguments: map[string]any{"query": q, "k": 3}})
			if err != nil || res.IsError || !strings.Contains(sdkText(res), "### 1. "+queries[q]+"\n") {
				if bad.Add(1) <= 3 {
					t.Errorf("call %d (%q): err %v, answer %.200q", i, q, err, func() string {
						if res == nil {
							return ""
						}
						return sdkText(res)
					}())
				}
				return
			}
			ok.Add(1)
		})
	}
	wg.Wait()
	t.Logf("%d calls over %d sessions (%d in flight): %d correct, %d wrong, %v", sessions*perSession, sessions, inFlight, ok.Load(), bad.Load(), time.Since(start).Round(time.Millisecond))
	if ok.Load() != sessions*perSession {
		t.Errorf("%d of %d calls answered correctly", ok.Load(), sessions*perSession)
	}
}
