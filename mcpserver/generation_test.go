package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
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
	s := newServer(t, mcpserver.Config{Open: func(ctx context.Context) (mcpserver.Store, error) {
		// Checking CURRENT on every call makes "the next call" exact.
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
	defer cs.Close()
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
