package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
)

// health reads /healthz.
func health(t testing.TB, base string) map[string]any {
	t.Helper()
	resp, err := http.Get(base + mcpserver.PathHealth)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// A running server serves each generation that a rebuild of its index
// directory makes live, from the next call on, without a restart, and
// /healthz names the generation and its bundle count.
func TestServer_ServesNewGeneration(t *testing.T) {
	all, _, err := bundles.ReadBundles(fixtureBundles, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	without := slices.DeleteFunc(slices.Clone(all), func(b bundles.Bundle) bool { return b.APIName == "numpy.unstack" })
	dir := filepath.Join(t.TempDir(), "index")
	m1, err := index.Build(t.Context(), dir, without, index.BuildConfig{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	cs, base := liveClient(t, dir)
	search := func() string {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "search_apis", Arguments: map[string]any{"query": "numpy.unstack", "k": 1}})
		if err != nil {
			t.Fatal(err)
		}
		return sdkText(res)
	}

	if got := search(); strings.Contains(got, "### 1. numpy.unstack") {
		t.Fatalf("first generation has no numpy.unstack, yet search_apis found it:\n%s", got)
	}
	if h := health(t, base); h["generation"] != m1.Generation || h["bundles"] != float64(m1.Bundles) {
		t.Errorf("/healthz = %v; want generation %s, bundles %d", h, m1.Generation, m1.Bundles)
	}
	m2, err := index.Build(t.Context(), dir, all, index.BuildConfig{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	if got := search(); !strings.Contains(got, "### 1. numpy.unstack") {
		t.Errorf("after the rebuild, search_apis still answers from the first generation:\n%.500s", got)
	}
	if h := health(t, base); h["generation"] != m2.Generation || h["bundles"] != float64(m2.Bundles) {
		t.Errorf("/healthz = %v; want generation %s, bundles %d", h, m2.Generation, m2.Bundles)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_api", Arguments: map[string]any{"api_name": "numpy.unstack"}})
	if err != nil || res.IsError {
		t.Errorf("get_api(numpy.unstack) after the rebuild: %v %s", err, sdkText(res))
	}
}

// An index built with --skip-bad says it is partial: `index build`
// prints it, and the server names the skipped bundles in /healthz and
// list_libraries.
func TestE2E_PartialIndex(t *testing.T) {
	raw, err := os.ReadFile(fixtureBundles)
	if err != nil {
		t.Fatal(err)
	}
	// The first numpy.unstack line cut in half: a torn write.
	var lines []string
	cut := false
	for l := range strings.Lines(string(raw)) {
		if !cut && strings.Contains(l, `"api_name": "numpy.unstack"`) {
			l, cut = l[:len(l)/2]+"\n", true
		}
		lines = append(lines, l)
	}
	in := filepath.Join(t.TempDir(), "bundles.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "index")
	bin := novelapiBinary(t)
	out, err := exec.Command(bin, "index", "build", "--bundles", in, "--index", dir, "--skip-bad").Output()
	if err != nil || !strings.Contains(string(out), "PARTIAL: 1 bad bundle line(s) were skipped") || !strings.Contains(string(out), "numpy.unstack (bundles.jsonl:") {
		t.Fatalf("index build --skip-bad: %v\n%s", err, out)
	}

	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve", "--index", dir, "--no-exec", "--http", addr)
	cmd.Env = append(os.Environ(), "NOVELAPI_HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	base := "http://" + addr
	waitHealthy(t, base)
	h := health(t, base)
	if h["partial"] != true || h["skipped"] != float64(1) || !strings.Contains(fmt.Sprint(h["skipped_names"]), "numpy.unstack") {
		t.Errorf("/healthz = %v; want partial, skipped 1, naming numpy.unstack", h)
	}
	cs, err := sdkClient().Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: base + mcpserver.PathMCP}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "list_libraries"})
	if err != nil {
		t.Fatal(err)
	}
	txt := sdkText(res)
	if !strings.HasPrefix(txt, "NOTE: this index is PARTIAL: 1 bundle(s) were skipped") || !strings.Contains(txt, "numpy.unstack") {
		t.Errorf("list_libraries:\n%s\nwant it to start with the PARTIAL note naming numpy.unstack", txt)
	}
	if sc, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(sc), `"partial":true`) {
		t.Errorf("list_libraries structuredContent = %s; want partial true", sc)
	}
}

// liveClient serves the live index in dir over streamable HTTP and returns
// a connected MCP client (closed at the end of the test) with the
// server's base URL. The server checks
// CURRENT on every call, which makes "the next call" exact.
func liveClient(t *testing.T, dir string) (*sdk.ClientSession, string) {
	t.Helper()
	s := newServer(t, mcpserver.Config{Open: func(ctx context.Context) (mcpserver.Store, error) {
		l, err := index.OpenLive(dir, index.LiveOptions{OpenOptions: index.OpenOptions{Logger: quietLog()}, CheckEvery: time.Nanosecond})
		if err != nil {
			return nil, err
		}
		return mcpserver.NewLiveStore(l), nil
	}})
	base := httpServer(t, s)
	cs, err := sdkClient().Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: base + mcpserver.PathMCP}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, base
}
