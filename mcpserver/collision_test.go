package mcpserver_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/pipeline"
	"github.com/novelapi/novelapi/private"
)

// A private numpy added with the name and version of the indexed Debian
// numpy (its bundles labelled as novelapi add labels them) is served beside
// it: nothing of the Debian one is replaced, both are labelled by source,
// and the source argument, or a project that installs numpy from a local
// path, chooses one (docs/private.md §4).
func TestServer_SameNameCollision(t *testing.T) {
	dir, all, priv := collisionIndex(t)
	ix, err := index.Open(dir, index.OpenOptions{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ix.Bundles()); got != len(all)+len(priv) {
		t.Errorf("index holds %d bundles; want %d Debian + %d private", got, len(all), len(priv))
	}
	// A project that installs numpy from the fork's path.
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "requirements.txt"), []byte("numpy @ file:///src/numpy-fork\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, newServer(t, mcpserver.Config{
		Open:      func(ctx context.Context) (mcpserver.Store, error) { return mcpserver.NewIndexStore(ix), nil },
		ReadRoots: []string{proj},
	}))

	const both = "debian,private:/src/numpy-fork"
	for _, tt := range []struct {
		name string
		args map[string]any
		want string // the sources numpy.unique_counts is served from, sorted
	}{
		{"SideBySide", map[string]any{"library": "numpy"}, both},
		{"AllLibraries", map[string]any{}, both},
		{"Debian", map[string]any{"library": "numpy", "source": "debian"}, "debian"},
		{"Private", map[string]any{"library": "numpy", "source": "private"}, "private:/src/numpy-fork"},
		{"Label", map[string]any{"source": "private:/src/numpy-fork"}, "private:/src/numpy-fork"},
		{"ProjectLocalPath", map[string]any{"library": "numpy", "project": proj}, "private:/src/numpy-fork"},
		{"SourceBeatsProject", map[string]any{"library": "numpy", "project": proj, "source": "debian"}, "debian"},
	} {
		t.Run("Search"+tt.name, func(t *testing.T) {
			tt.args["query"], tt.args["k"] = "numpy.unique_counts", 4
			res := call(t, c, "search_apis", tt.args)
			wantOK(t, res)
			var out struct {
				Results []struct {
					APIName string `json:"api_name"`
					Source  string `json:"source"`
					Handle  string `json:"handle"`
				}
			}
			structured(t, res, &out)
			var sources []string
			for _, r := range out.Results {
				if r.APIName == "numpy.unique_counts" {
					sources = append(sources, r.Source)
					// Each source's handle fetches its own bundle.
					if kind, _, _ := strings.Cut(r.Source, ":"); r.Handle != "novelapi://api/numpy.unique_counts@2.2.4~"+kind {
						t.Errorf("handle of numpy.unique_counts from %s: %q", r.Source, r.Handle)
					}
				}
			}
			slices.Sort(sources)
			if got := strings.Join(sources, ","); got != tt.want {
				t.Errorf("numpy.unique_counts served from %q; want %q\n%s", got, tt.want, text(res))
			}
		})
	}
	for _, tt := range []struct{ handle, want string }{
		{"novelapi://api/numpy.unique_counts@2.2.4~debian", "source: debian\n"},
		{"novelapi://api/numpy.unique_counts@2.2.4~private", "source: private:/src/numpy-fork\n"},
		{"numpy.unique_counts~debian", "source: debian\n"},
		{"`np.unique_counts@2.2.4~private`", "source: private:/src/numpy-fork\n"},
	} {
		res := call(t, c, "get_api", map[string]any{"api_name": tt.handle})
		wantOK(t, res)
		if !strings.Contains(text(res), tt.want) {
			t.Errorf("get_api %s does not say %q:\n%s", tt.handle, tt.want, text(res))
		}
		if !strings.HasPrefix(tt.handle, "novelapi://") {
			continue
		}
		rr, err := c.ReadResource(t.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: tt.handle}})
		if err != nil {
			t.Errorf("resources/read %s: %v", tt.handle, err)
		} else if txt := rr.Contents[0].(mcp.TextResourceContents).Text; !strings.Contains(txt, tt.want) {
			t.Errorf("resources/read %s lacks %q:\n%s", tt.handle, tt.want, txt)
		}
	}
	for _, tt := range []struct{ name, source, project, want string }{
		{"Debian", "debian", "", "source: debian\n"},
		{"Private", "private", "", "source: private:/src/numpy-fork\n"},
		{"Unchosen", "", "", "also indexed from debian 2.2.4"},
		{"ProjectLocalPath", "", proj, "source: private:/src/numpy-fork\n"},
		{"SourceBeatsProject", "debian", proj, "source: debian\n"},
	} {
		t.Run("Get"+tt.name, func(t *testing.T) {
			args := map[string]any{"api_name": "numpy.unique_counts"}
			if tt.source != "" {
				args["source"] = tt.source
			}
			if tt.project != "" {
				args["project"] = tt.project
			}
			res := call(t, c, "get_api", args)
			wantOK(t, res)
			if !strings.Contains(text(res), tt.want) {
				t.Errorf("get_api source=%q project=%q does not say %q:\n%s", tt.source, tt.project, tt.want, text(res))
			}
		})
	}
	wantError(t, call(t, c, "get_api", map[string]any{"api_name": "numpy.unique_counts", "source": "conda"}), "has no bundles from source")
	wantError(t, call(t, c, "search_apis", map[string]any{"query": "unique", "library": "numpy", "source": "conda"}), "has no bundles from source")

	res := call(t, c, "list_libraries", nil)
	wantOK(t, res)
	for _, w := range []string{"| numpy | 2.2.4 | (private: whole library) |", "| /src/numpy-fork |"} {
		if !strings.Contains(text(res), w) {
			t.Errorf("list_libraries does not show %q:\n%s", w, text(res))
		}
	}
}

// collisionIndex builds an index of the fixture bundles, then adds to it,
// as novelapi add does, a private numpy from /src/numpy-fork: the fixture's
// numpy 2.2.4 bundles labelled private.
func collisionIndex(t testing.TB) (dir string, all, priv []bundles.Bundle) {
	t.Helper()
	all, _, err := bundles.ReadBundles(fixtureBundles, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range all {
		if b.Library == "numpy" && b.Provenance != nil && b.Provenance.Version == "2.2.4" {
			p := *b.Provenance
			p.Source, p.Novelty = "/src/numpy-fork", bundles.NoveltyPrivate
			b.Provenance = &p
			priv = append(priv, b)
		}
	}
	dir = filepath.Join(t.TempDir(), "index")
	if _, err := index.Build(t.Context(), dir, all, index.BuildConfig{Logger: quietLog()}); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Add(t.Context(), dir, priv, index.BuildConfig{Logger: quietLog()}); err != nil {
		t.Fatal(err)
	}
	return dir, all, priv
}

// A private library removed (novelapi rm, pipeline.Remove) while agents
// search it: every answer comes whole from one generation, the last good
// one, with the private numpy or without it, never an error; a removal
// that fails leaves the generation, and the registry, as they were; after
// the removal the Debian numpy of the same name is served, and the private
// one is gone (docs/private.md §4).
func TestServer_PrivateRemovedWhileSearched(t *testing.T) {
	dir, _, _ := collisionIndex(t)
	home := t.TempDir()
	reg := private.OpenRegistry(filepath.Join(home, "private"))
	if err := reg.Update(func(es []private.Entry) ([]private.Entry, error) {
		return append(es, private.Entry{Library: "numpy", Dist: "numpy", Version: "2.2.4", Source: "/src/numpy-fork", Kind: "tree",
			Env: "numpy-2.2.4.trixie-sci", Base: "trixie-sci", Imports: []string{"numpy"}, Import: "numpy"}), nil
	}); err != nil {
		t.Fatal(err)
	}
	cs, _ := liveClient(t, dir)
	// served returns the sources numpy.unique_counts is served from, or
	// the text of a tool error.
	served := func() (string, error) {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "search_apis",
			Arguments: map[string]any{"query": "numpy.unique_counts", "library": "numpy", "k": 4}})
		if err != nil {
			return "", err
		}
		if res.IsError {
			return "", fmt.Errorf("tool error: %s", sdkText(res))
		}
		var out struct {
			Results []struct {
				APIName string `json:"api_name"`
				Source  string `json:"source"`
			}
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			return "", err
		}
		var sources []string
		for _, r := range out.Results {
			if r.APIName == "numpy.unique_counts" {
				sources = append(sources, cmp.Or(r.Source, "debian"))
			}
		}
		slices.Sort(sources)
		return strings.Join(sources, ","), nil
	}
	const both, debian = "debian,private:/src/numpy-fork", "debian"
	if got, err := served(); got != both || err != nil {
		t.Fatalf("before rm: numpy.unique_counts from %q, %v; want %q", got, err, both)
	}
	gen := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "CURRENT"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	g0 := gen()
	rm := func(ctx context.Context) (*pipeline.RemoveResult, error) {
		return pipeline.Remove(ctx, pipeline.RemoveConfig{Home: home, Library: "numpy", IndexDir: dir, KeepEnvs: true, Log: quietLog()})
	}

	// Agents search throughout.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				got, err := served()
				if err != nil {
					got = "error: " + err.Error()
				}
				mu.Lock()
				answers[got]++
				mu.Unlock()
			}
		})
	}

	// A removal cancelled before it could finish.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := rm(ctx); err == nil {
		t.Errorf("rm with a cancelled context succeeded")
	}
	if g := gen(); g != g0 {
		t.Errorf("a failed rm switched the index from %s to %s", g0, g)
	}
	if es, err := reg.Entries(); err != nil || len(es) != 1 {
		t.Errorf("after a failed rm the registry holds %v, %v; want numpy still", es, err)
	}
	if got, err := served(); got != both || err != nil {
		t.Errorf("after a failed rm: numpy.unique_counts from %q, %v; want %q", got, err, both)
	}

	r, err := rm(t.Context())
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if r.Bundles == 0 || r.Generation == g0 {
		t.Errorf("rm: %+v; want the private bundles out in a new generation", r)
	}
	for a, n := range answers {
		if a != both && a != debian {
			t.Errorf("%d answer(s) while removing: %q; want %q or %q", n, a, both, debian)
		}
	}
	t.Logf("answers while removing: %v", answers)
	if got, err := served(); got != debian || err != nil {
		t.Errorf("after rm: numpy.unique_counts from %q, %v; want %q", got, err, debian)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_api", Arguments: map[string]any{"api_name": "numpy.unique_counts", "source": "private"}})
	if err != nil || !res.IsError || !strings.Contains(sdkText(res), "has no bundles from source") {
		t.Errorf("get_api source=private after rm: %v %s; want a tool error", err, sdkText(res))
	}
}

// A source the API, or the library, has no bundle from is a tool error
// naming the sources it has, never another source's bundle under that
// source's name (docs/private.md §4): numpy.unique_counts indexed only in
// a private numpy fork, the Debian numpy from sid.
func TestServer_SourceWithoutBundle(t *testing.T) {
	all, _, err := bundles.ReadBundles(fixtureBundles, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var deb, priv []bundles.Bundle
	for _, b := range all {
		if b.Library == "numpy" && b.Provenance != nil {
			p := *b.Provenance
			p.Suite = "sid"
			if p.Version == "2.2.4" {
				pp := *b.Provenance
				pp.Source, pp.Novelty = "/src/numpy-fork", bundles.NoveltyPrivate
				pb := b
				pb.Provenance = &pp
				priv = append(priv, pb)
			}
			b.Provenance = &p
		}
		if b.APIName != "numpy.unique_counts" {
			deb = append(deb, b)
		}
	}
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := index.Build(t.Context(), dir, deb, index.BuildConfig{Logger: quietLog()}); err != nil {
		t.Fatal(err)
	}
	if _, err := index.Add(t.Context(), dir, priv, index.BuildConfig{Logger: quietLog()}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir, index.OpenOptions{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, newServer(t, mcpserver.Config{
		Open: func(ctx context.Context) (mcpserver.Store, error) { return mcpserver.NewIndexStore(ix), nil },
	}))
	res := call(t, c, "get_api", map[string]any{"api_name": "numpy.unique_counts", "source": "debian"})
	wantError(t, res, "library numpy has no bundle numpy.unique_counts from source debian; its sources: private:/src/numpy-fork")
	res = call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "source": "debian:trixie"})
	wantError(t, res, `library numpy has no bundles from source "debian:trixie"; its sources: debian:sid, private:/src/numpy-fork`)
	res = call(t, c, "search_apis", map[string]any{"query": "unstack", "library": "numpy", "source": "debian:trixie"})
	wantError(t, res, `library numpy has no bundles from source "debian:trixie"; its sources: debian:sid, private:/src/numpy-fork`)
	// Without a library, a source no library has (docs/private.md §4).
	for _, src := range []string{"conda", "debian:trixie"} {
		res = call(t, c, "search_apis", map[string]any{"query": "slice strings", "source": src})
		wantError(t, res, `this index has no bundles from source "`+src+`"; its sources: debian, debian:sid, private:/src/numpy-fork`)
	}
	res = call(t, c, "search_apis", map[string]any{"query": "unstack", "source": "debian:sid"})
	wantOK(t, res)
	for _, src := range []string{"debian:sid", "private"} {
		res = call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "source": src})
		wantOK(t, res)
		if strings.Contains(text(res), "()") {
			t.Errorf("get_api source=%s:\n%s", src, text(res))
		}
	}
	res = call(t, c, "get_api", map[string]any{"api_name": "numpy.unique_counts", "source": "private"})
	wantOK(t, res)
	if !strings.Contains(text(res), "source: private:/src/numpy-fork\n") {
		t.Errorf("get_api numpy.unique_counts source=private:\n%s", text(res))
	}
}
