package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/pipeline"
	"github.com/novelapi/novelapi/private/privatetest"
	"github.com/novelapi/novelapi/sandbox"
)

// A server running over an index of Debian bundles serves a private
// library from the call after novelapi add (attrs 25.3.0, from Debian's
// files, which trixie-sci lacks): list_libraries shows it with its source,
// check_code runs the agent's code in its layered environment, and after
// novelapi rm the next call no longer lists it.
func TestServer_PrivateLibrary(t *testing.T) {
	need := func(err error) {
		t.Helper()
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	// A store of the test's own: the attrs layer it adds and removes is
	// never a user's.
	store := privatetest.Store(t, "trixie-sci")
	runner, err := sandbox.NewBwrap(sandbox.BwrapConfig{})
	if err != nil {
		need(err)
	}
	all, _, err := bundles.ReadBundles(fixtureBundles, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := filepath.Join(home, "index")
	if _, err := index.Build(t.Context(), dir, all, index.BuildConfig{Logger: quietLog()}); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, mcpserver.Config{
		Open: func(ctx context.Context) (mcpserver.Store, error) {
			l, err := index.OpenLive(dir, index.LiveOptions{OpenOptions: index.OpenOptions{Logger: quietLog()}, CheckEvery: time.Nanosecond})
			if err != nil {
				return nil, err
			}
			return mcpserver.NewLiveStore(l), nil
		},
		Harness: func(ctx context.Context) (*evalharness.Harness, error) {
			return evalharness.New(evalharness.Config{Runner: runner, Store: store, Log: quietLog()})
		},
	})
	base := httpServer(t, s)
	cs, err := sdkClient().Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: base + mcpserver.PathMCP}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) (string, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var sc map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &sc)
		return sdkText(res), sc
	}
	if text, _ := call("list_libraries", map[string]any{}); strings.Contains(text, "| attrs |") {
		t.Fatalf("attrs listed before it was added:\n%s", text)
	}

	attrs := privatetest.Installed(t, "trixie", "python3-attr")
	res, err := pipeline.Add(t.Context(), pipeline.AddConfig{Home: home, Store: store, Path: attrs, Env: "trixie-sci",
		Runner: runner, Workers: 2, SkipTasks: true, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Remove(context.Background(), res.Env) })

	text, _ := call("list_libraries", map[string]any{})
	if !strings.Contains(text, "| attrs | 25.3.0 | (private: whole library) |") || !strings.Contains(text, "| "+res.Env+" | "+attrs+" |") {
		t.Errorf("list_libraries after add:\n%s", text)
	}
	text, _ = call("get_api", map[string]any{"api_name": "attr.asdict"})
	if !strings.Contains(text, "private library API") {
		t.Errorf("get_api attr.asdict:\n%s", text)
	}
	code := "import attr\n\n@attr.s\nclass Point:\n    x = attr.ib()\n    y = attr.ib(default=0)\n\nprint(attr.asdict(Point(1)))\n"
	text, sc := call("check_code", map[string]any{"api_name": "attr.asdict", "code": code})
	if sc["ran"] != true || sc["target_called"] != true {
		t.Errorf("check_code of attrs code in its layer:\n%s", text)
	}

	if _, err := pipeline.Remove(t.Context(), pipeline.RemoveConfig{Home: home, Store: store, Library: "attrs", Log: quietLog()}); err != nil {
		t.Fatal(err)
	}
	if text, _ := call("list_libraries", map[string]any{}); strings.Contains(text, "| attrs |") || !strings.Contains(text, "| numpy |") {
		t.Errorf("list_libraries after rm attrs:\n%s", text)
	}
}
