package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
)

// searchOut mirrors search_apis' structuredContent.
type searchOut struct {
	Query   string `json:"query"`
	Library string `json:"library"`
	Version *struct {
		Requested, Served, Match string
		Available                []string
	} `json:"version"`
	Components string   `json:"components"`
	MaxTokens  int      `json:"max_tokens"`
	Tokens     int      `json:"tokens"`
	Notes      []string `json:"notes"`
	Results    []struct {
		Rank                                                 int
		APIName                                              string `json:"api_name"`
		Library, Version, Match, Handle, Components, Missing string
		Truncated                                            bool
		Instances                                            []string
	} `json:"results"`
	Omitted []struct {
		APIName string `json:"api_name"`
		Handle  string
	} `json:"omitted"`
	Suggestions []string `json:"suggestions"`
}

func search(t *testing.T, c *client.Client, args map[string]any) (searchOut, string) {
	t.Helper()
	res := call(t, c, "search_apis", args)
	wantOK(t, res)
	var out searchOut
	structured(t, res, &out)
	return out, text(res)
}

func TestTools_ListedWithSchemasAndExplicitAnnotations(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{Harness: execHarness(t)}))
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	type hints struct{ ro, destructive, idem, open bool }
	want := map[string]hints{
		"search_apis":      {true, false, true, false},
		"get_api":          {true, false, true, false},
		"list_libraries":   {true, false, true, false},
		"render_condition": {true, false, true, false},
		"check_code":       {true, false, true, false},
		"evaluate":         {false, false, true, false}, // no model endpoint configured
	}
	if len(res.Tools) != len(want) {
		t.Errorf("got %d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		a := tool.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations not all explicit: %+v", tool.Name, a)
			continue
		}
		got := hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}
		if got != w {
			t.Errorf("%s: hints (readOnly, destructive, idempotent, openWorld) = %v, want %v", tool.Name, got, w)
		}
		if len(tool.Description) < 80 {
			t.Errorf("%s: description too short for an agent: %q", tool.Name, tool.Description)
		}
		for name, p := range tool.InputSchema.Properties {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
		}
	}
}

func TestSearch_DefaultComponentsVersionProvenanceHandle(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	out, txt := search(t, c, map[string]any{"query": "numpy.unstack"})
	if len(out.Results) == 0 || out.Results[0].APIName != "numpy.unstack" {
		t.Fatalf("top result = %+v, want numpy.unstack", out.Results)
	}
	r := out.Results[0]
	if r.Components != "S+E" || r.Version != "2.2.4" || r.Match != mcpserver.MatchLatest || r.Handle != "novelapi://api/numpy.unstack@2.2.4" {
		t.Errorf("top result = %+v", r)
	}
	for _, want := range []string{"API: numpy.unstack", "Parameters:", "Example 1:", "handle: novelapi://api/numpy.unstack@2.2.4",
		"valid import paths: numpy.unstack (+1 more)", "provenance: ", "bundle "} {
		if !strings.Contains(txt, want) {
			t.Errorf("answer lacks %q:\n%s", want, txt)
		}
	}
	if strings.Contains(txt, "Implementation source:") || strings.Contains(txt, "Conceptual background:") {
		t.Errorf("C or M served without being asked:\n%s", txt)
	}
	// C only on request.
	out, txt = search(t, c, map[string]any{"query": "numpy.unstack", "components": []string{"C"}})
	if out.Results[0].Components != "C" || !strings.Contains(txt, "Implementation source:") || strings.Contains(txt, "Parameters:") {
		t.Errorf("components [C]: %+v\n%s", out.Results[0], txt)
	}
}

// T13: exact identifiers win.
func TestSearch_ExactIdentifierWins(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	out, _ := search(t, c, map[string]any{"query": "read_csv dtype_backend"})
	if len(out.Results) == 0 || out.Results[0].APIName != "pandas.read_csv" {
		t.Fatalf("top-1 = %+v, want pandas.read_csv", out.Results)
	}
}

// T25: tolerant argument names; an unknown one names the right parameters.
func TestSearch_ArgumentAliases(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	for _, args := range []map[string]any{
		{"question": "cumulative sum of an array", "libraryName": "numpy"},
		{"userQuery": "cumulative sum of an array", "library_id": "numpy", "limit": 3},
		{"q": "cumulative sum of an array", "package": "NumPy", "maxTokens": 3000},
	} {
		out, _ := search(t, c, args)
		if out.Library != "numpy" || len(out.Results) == 0 {
			t.Errorf("%v: library %q, %d results", args, out.Library, len(out.Results))
		}
		for _, r := range out.Results {
			if r.Library != "numpy" {
				t.Errorf("%v: result from %s", args, r.Library)
			}
		}
	}
	wantError(t, call(t, c, "search_apis", map[string]any{"query": "x", "libary": "numpy"}),
		`unknown parameter "libary"`, "valid parameters: query, library, version, components, k, max_tokens")
}

func TestSearch_BadInputsAreToolErrors(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"MissingQuery", map[string]any{}, "query is required"},
		{"QueryNotString", map[string]any{"query": 42.0 + 0.5}, "query must be a string"},
		{"QueryObject", map[string]any{"query": map[string]any{"a": 1}}, "query must be a string"},
		{"HugeQuery", map[string]any{"query": strings.Repeat("numpy ", 3000)}, "the limit is 16384"},
		{"UnknownComponent", map[string]any{"query": "x", "components": []string{"S", "Z"}}, `unknown component "Z"`},
		{"ComponentsNotList", map[string]any{"query": "x", "components": 3}, "components must be an array of strings"},
		{"KNotInteger", map[string]any{"query": "x", "k": "many"}, "k must be an integer"},
		{"KFraction", map[string]any{"query": "x", "k": 2.5}, "k must be an integer"},
		{"UnknownLibrary", map[string]any{"query": "x", "library": "PIL"}, `no library "PIL"`},
		{"TooManyComponents", map[string]any{"query": "x", "components": strings.Split(strings.Repeat("S,", 40), ",")}, "limit is 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, call(t, c, "search_apis", tt.args), tt.want)
		})
	}
}

// T16, T17: budget respected by the stated estimator, manifest of what was
// left out, out-of-range budgets clamped and never rejected.
func TestSearch_TokenBudget(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	for _, tt := range []struct {
		budget  any
		want    int
		clamped bool
	}{{2000, 2000, false}, {200, mcpserver.MinMaxTokens, true}, {1e7, mcpserver.MaxMaxTokens, true}, {"900", 900, false}} {
		res := call(t, c, "search_apis", map[string]any{"query": "array axis numpy scipy pandas", "k": 20, "components": []string{"Full"}, "max_tokens": tt.budget})
		wantOK(t, res)
		var out searchOut
		structured(t, res, &out)
		mj, _ := json.Marshal(res.StructuredContent)
		total := tokens(text(res)) + tokens(string(mj))
		if out.MaxTokens != tt.want || total > tt.want {
			t.Errorf("max_tokens=%v: budget %d (want %d), answer %d tokens (text %d + manifest %d)", tt.budget, out.MaxTokens, tt.want, total, tokens(text(res)), tokens(string(mj)))
		}
		if tt.want < 3000 {
			if len(out.Omitted) == 0 || !strings.Contains(text(res), "did not fit") {
				t.Errorf("max_tokens=%v: no truncation note or omitted list:\n%s", tt.budget, text(res))
			}
			for _, o := range out.Omitted {
				if !strings.HasPrefix(o.Handle, mcpserver.HandlePrefix) || !strings.Contains(text(res), o.Handle) {
					t.Errorf("omitted %s: handle %q not listed", o.APIName, o.Handle)
				}
			}
		}
		if tt.clamped != strings.Contains(text(res), "clamped") {
			t.Errorf("max_tokens=%v: clamping not stated", tt.budget)
		}
	}
	// Default budget stays well under the 25k client cap.
	res := call(t, c, "search_apis", map[string]any{"query": "array", "k": 20, "components": "Full"})
	if n := tokens(text(res)); n > mcpserver.DefaultMaxTokens {
		t.Errorf("default answer %d tokens > %d", n, mcpserver.DefaultMaxTokens)
	}
}

// T15: no hit → a short answer with the nearest names, never a dump.
func TestSearch_NoHitsShortAnswer(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	for _, args := range []map[string]any{
		{"query": "qwxz zzyzx"},
		{"query": "unstak", "library": "numpy"},
	} {
		out, txt := search(t, c, args)
		if len(out.Results) != 0 && out.Results[0].APIName != "numpy.unstack" {
			continue // the lexical leg may still find a near name: fine
		}
		if tokens(txt) > 500 {
			t.Errorf("%v: no-hit answer is %d tokens:\n%s", args, tokens(txt), txt)
		}
		if len(out.Results) == 0 && !strings.Contains(txt, "No novel API matched") {
			t.Errorf("%v: %s", args, txt)
		}
		if strings.Contains(txt, "Example 1") {
			t.Errorf("%v: no-hit answer dumps bundles", args)
		}
	}
	// Vector neighbours of a nonsense query are ties in any order: the
	// golden file omits that line.
	_, txt := search(t, c, map[string]any{"query": "qwxz zzyzx"})
	var kept []string
	for _, line := range strings.Split(txt, "\n") {
		if !strings.HasPrefix(line, "Loosely related") {
			kept = append(kept, line)
		}
	}
	golden(t, "search_apis", "no_hits", strings.Join(kept, "\n"))
}

// T1, T3, T5: version resolution and disclosure.
func TestSearch_VersionResolution(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tests := []struct {
		version, served, match string
	}{
		{"", "2.7.4", mcpserver.MatchLatest},
		{"2.7.4", "2.7.4", mcpserver.MatchExact},
		{"==2.5.3", "2.5.3", mcpserver.MatchExact},
		{"2.5", "2.5.3", mcpserver.MatchRange},
		{"~=2.5", "2.7.4", mcpserver.MatchRange},
		{"2.x", "2.7.4", mcpserver.MatchRange},
		{">=2.0,<2.6", "2.5.3", mcpserver.MatchRange},
		{"1.10.13", "2.7.4", mcpserver.MatchFallback},
	}
	for _, tt := range tests {
		out, txt := search(t, c, map[string]any{"query": "model_dump dictionary", "library": "pydantic", "version": tt.version})
		if out.Version == nil || out.Version.Served != tt.served || out.Version.Match != tt.match {
			t.Errorf("version %q: got %+v, want served %s (%s)", tt.version, out.Version, tt.served, tt.match)
			continue
		}
		if len(out.Results) == 0 || out.Results[0].Version != tt.served || out.Results[0].Match != tt.match {
			t.Errorf("version %q: results %+v", tt.version, out.Results)
		}
		switch tt.match {
		case mcpserver.MatchExact:
			want := "library pydantic " + tt.served + " (exact match) · "
			if tt.version != tt.served {
				want = "library pydantic " + tt.served + " (exact match for requested " + tt.version + ") · "
			}
			if !strings.Contains(txt, want) {
				t.Errorf("version %q: text lacks %q:\n%s", tt.version, want, txt)
			}
		case mcpserver.MatchRange:
			if want := "library pydantic " + tt.served + " (range match for requested " + tt.version + ") · "; !strings.Contains(txt, want) {
				t.Errorf("version %q: range not disclosed as %q:\n%s", tt.version, want, txt)
			}
		case mcpserver.MatchFallback:
			for _, want := range []string{"version 1.10.13 is not available", "2.5.3, 2.7.4", "FALLBACK"} {
				if !strings.Contains(txt, want) {
					t.Errorf("fallback answer lacks %q:\n%s", want, txt)
				}
			}
		}
	}
	// 2.7.4 has serialize_as_any, 2.5.3 does not: the served version is real.
	_, txt := search(t, c, map[string]any{"query": "model_dump", "library": "pydantic", "version": "2.5.3"})
	if strings.Contains(txt, "serialize_as_any") {
		t.Errorf("2.5.3 answer shows a 2.7 parameter:\n%s", txt)
	}
}

// T6: import name vs distribution name.
func TestSearch_LibraryImportAndDistributionNames(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	for _, lib := range []string{"sklearn", "scikit-learn", "Scikit_Learn"} {
		out, _ := search(t, c, map[string]any{"query": "log loss score", "library": lib})
		if out.Library != "scikit-learn" || len(out.Results) == 0 || out.Results[0].APIName != "sklearn.metrics.d2_log_loss_score" {
			t.Errorf("library %q: %+v", lib, out)
		}
	}
}

func TestGetAPI(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	type getOut struct {
		APIName     string   `json:"api_name"`
		ResolvedVia string   `json:"resolved_via"`
		ImportPaths []string `json:"import_paths"`
		Components  string
		Version     struct{ Requested, Served, Match string }
	}
	get := func(args map[string]any) (getOut, string) {
		t.Helper()
		res := call(t, c, "get_api", args)
		wantOK(t, res)
		var out getOut
		structured(t, res, &out)
		return out, text(res)
	}
	out, txt := get(map[string]any{"api_name": "numpy.unstack"})
	if out.APIName != "numpy.unstack" || out.Version.Served != "2.2.4" || out.Components != "S+E" {
		t.Errorf("numpy.unstack: %+v", out)
	}
	golden(t, "get_api", "numpy_unstack", txt)

	// A re-export path of the same object resolves.
	out, txt = get(map[string]any{"name": "numpy.lib._shape_base_impl.unstack"})
	if out.APIName != "numpy.unstack" || out.ResolvedVia != "alias" || !strings.Contains(txt, "another import path of numpy.unstack") {
		t.Errorf("alias: %+v\n%s", out, txt)
	}
	// A handle pins its version.
	out, txt = get(map[string]any{"api_name": "novelapi://api/numpy.unstack@2.1.3"})
	if out.Version.Served != "2.1.3" || out.Version.Match != mcpserver.MatchExact || !strings.Contains(txt, "(2, 3, 5)") {
		t.Errorf("handle @2.1.3: %+v\n%s", out, txt)
	}
	// An API missing from the requested library version is a labelled fallback.
	out, txt = get(map[string]any{"api_name": "numpy.cumulative_sum", "version": "2.1"})
	if out.Version.Match != mcpserver.MatchFallback || !strings.Contains(txt, "does not exist in numpy 2.1.3") {
		t.Errorf("cumulative_sum@2.1: %+v\n%s", out, txt)
	}
	// T10: every valid import path is shown.
	out, txt = get(map[string]any{"api_name": "pandas.read_csv", "components": []string{"S"}})
	if len(out.ImportPaths) != 3 || !strings.Contains(txt, "valid import paths: pandas.read_csv, pandas.io.parsers.read_csv, pandas.io.parsers.readers.read_csv") {
		t.Errorf("read_csv import paths: %v\n%s", out.ImportPaths, txt)
	}
	if !strings.Contains(txt, "previous signature:") {
		t.Errorf("modified API without its previous signature:\n%s", txt)
	}
	// Library + leaf name.
	out, _ = get(map[string]any{"api_name": "case_when", "library": "pandas"})
	if out.APIName != "pandas.Series.case_when" {
		t.Errorf("leaf + library: %+v", out)
	}
	// Components M and C on request; a missing one is said.
	_, txt = get(map[string]any{"api_name": "numpy.bitwise_count", "components": []string{"M", "C"}})
	if !strings.Contains(txt, "Conceptual background:") || !strings.Contains(txt, "has no C component") {
		t.Errorf("bitwise_count M+C:\n%s", txt)
	}
	// Unknown names get near misses (T6).
	wantError(t, call(t, c, "get_api", map[string]any{"api_name": "numpy.unstak"}), "Did you mean", "numpy.unstack")
	wantError(t, call(t, c, "get_api", map[string]any{"api_name": "qqqq.zzzz"}), "no novel API named")
	wantError(t, call(t, c, "get_api", map[string]any{}), "api_name is required")
	// T1 on get_api.
	_, txt = get(map[string]any{"api_name": "pydantic.BaseModel.model_dump", "version": "1.10.13"})
	for _, want := range []string{"version 1.10.13 is not available", "available: 2.5.3, 2.7.4", "FALLBACK"} {
		if !strings.Contains(txt, want) {
			t.Errorf("T1 get_api lacks %q:\n%s", want, txt)
		}
	}
}

func TestListLibraries(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	res := call(t, c, "list_libraries", nil)
	wantOK(t, res)
	golden(t, "list_libraries", "fixture", text(res))
	var out struct {
		APIs      int `json:"apis"`
		Libraries []struct {
			Library  string
			Versions []struct {
				Version string
				New     int `json:"new"`
			}
		}
	}
	structured(t, res, &out)
	if out.APIs != 21 || len(out.Libraries) != 6 {
		t.Errorf("list_libraries: %d APIs, %d libraries: %+v", out.APIs, len(out.Libraries), out)
	}
	wantError(t, call(t, c, "list_libraries", map[string]any{"library": "x"}), "unknown parameter")
}

// render_condition returns exactly bundles.Render for every condition, in
// structuredContent.text, and quotes it whole in its text content.
func TestRenderCondition_MatchesBundlesRender(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	bs, _, err := bundles.ReadBundles(fixtureBundles, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := bundles.Find(bs, "pandas.read_csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, cond := range bundles.AllConditions() {
		res := call(t, c, "render_condition", map[string]any{"api_name": "pandas.read_csv", "condition": string(cond)})
		wantOK(t, res)
		want := bundles.Render(b, cond)
		if got := res.StructuredContent.(map[string]any)["text"]; got != want {
			t.Errorf("%s: structuredContent.text = %q, want %q", cond, got, want)
		}
		if want != "" && !strings.Contains(text(res), "text\n"+want+"\n```") {
			t.Errorf("%s: text content does not quote the rendering whole:\n%s", cond, text(res))
		}
	}
	res := call(t, c, "render_condition", map[string]any{"api_name": "pandas.read_csv", "condition": "S_E"})
	golden(t, "render_condition", "read_csv_S+E", text(res))
	wantError(t, call(t, c, "render_condition", map[string]any{"api_name": "pandas.read_csv", "condition": "S+X"}), "valid:")
}

func TestResourcesAndPrompt(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{Harness: execHarness(t)}))
	ctx := context.Background()
	res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: mcpserver.LibrariesURI}})
	if err != nil {
		t.Fatal(err)
	}
	if tc := res.Contents[0].(mcp.TextResourceContents); !strings.Contains(tc.Text, `"library":"numpy"`) {
		t.Errorf("libraries resource: %s", tc.Text)
	}
	res, err = c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "novelapi://api/numpy.unstack"}})
	if err != nil {
		t.Fatal(err)
	}
	tc := res.Contents[0].(mcp.TextResourceContents)
	for _, want := range []string{"API: numpy.unstack", "Example 1:", "Conceptual background:", "Implementation source:"} {
		if !strings.Contains(tc.Text, want) {
			t.Errorf("api resource lacks %q", want)
		}
	}
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "novelapi://api/numpy.nothing"}}); err == nil {
		t.Error("unknown API resource: no error")
	}
	tmpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tmpl.ResourceTemplates) != 1 {
		t.Fatalf("templates: %v %v", tmpl, err)
	}
	var gp mcp.GetPromptRequest
	gp.Params.Name = mcpserver.PromptName
	gp.Params.Arguments = map[string]string{"task": "split an array into a tuple along an axis", "library": "numpy"}
	pr, err := c.GetPrompt(ctx, gp)
	if err != nil {
		t.Fatal(err)
	}
	body := pr.Messages[0].Content.(mcp.TextContent).Text
	for _, want := range []string{"search_apis", "get_api", "check_code", `library="numpy"`} {
		if !strings.Contains(body, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

// A server that does not run code (Config.Harness nil, as under serve
// --no-exec) offers no check_code or evaluate, and neither its
// instructions nor its prompt tell the agent to use them; a server that
// runs code offers both and says so.
func TestServer_CodeToolsOnlyWithHarness(t *testing.T) {
	tests := []struct {
		name string
		cfg  mcpserver.Config
		exec bool
	}{
		{"NoHarness", mcpserver.Config{}, false},
		{"Harness", mcpserver.Config{Harness: execHarness(t)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, init := initialize(t, newServer(t, tt.cfg))
			ctx := context.Background()
			res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, tool := range res.Tools {
				listed[tool.Name] = true
			}
			if listed["check_code"] != tt.exec || listed["evaluate"] != tt.exec || len(res.Tools) != 4+2*btoi(tt.exec) {
				t.Errorf("tools %v; want check_code and evaluate listed: %v", listed, tt.exec)
			}
			ins := init.Instructions
			if strings.Contains(ins, "check_code(") != tt.exec || strings.Contains(ins, "and evaluate are") != tt.exec ||
				strings.Contains(ins, "Code execution is off") == tt.exec || strings.Contains(ins, "{{") {
				t.Errorf("instructions (exec %v):\n%s", tt.exec, ins)
			}
			var gp mcp.GetPromptRequest
			gp.Params.Name = mcpserver.PromptName
			gp.Params.Arguments = map[string]string{"task": "split an array into a tuple along an axis"}
			pr, err := c.GetPrompt(ctx, gp)
			if err != nil {
				t.Fatal(err)
			}
			if body := pr.Messages[0].Content.(mcp.TextContent).Text; strings.Contains(body, "check_code") != tt.exec {
				t.Errorf("prompt (exec %v):\n%s", tt.exec, body)
			}
			if !tt.exec {
				var req mcp.CallToolRequest
				req.Params.Name = "check_code"
				req.Params.Arguments = map[string]any{"code": "print(1)", "api_name": "numpy.unstack"}
				if res, err := c.CallTool(ctx, req); err == nil {
					t.Errorf("check_code answered without a harness: %s", text(res))
				}
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestCodeTools_ArgumentErrors(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{Harness: execHarness(t)}))
	wantError(t, call(t, c, "check_code", map[string]any{"code": strings.Repeat("x", mcpserver.MaxCodeBytes+1), "api_name": "numpy.unstack"}), "the limit is")
	wantError(t, call(t, c, "check_code", map[string]any{"code": "print(1)"}), "api_name is required")
	// The name is pasted into the setup's import lines: "import numpy\nprint(6*7)" ran its print.
	wantError(t, call(t, c, "check_code", map[string]any{"code": "print(1)", "api_name": "numpy\nprint(6*7)\nimport numpy.x y"}), "not a dotted Python name")
	wantError(t, call(t, c, "evaluate", map[string]any{}), "exactly one of")
	wantError(t, call(t, c, "evaluate", map[string]any{"predictions": "nope"}), "predictions must be an array")
	wantError(t, call(t, c, "evaluate", map[string]any{"predictions": []any{map[string]any{"task_id": "t1", "completion": "x"}}}), "no task pool")
}

// T23: initialize and tools/list answer while the index is still loading;
// a tool call says so.
func TestServer_NotReadyYet(t *testing.T) {
	release := make(chan struct{})
	open := openFixture(t)
	s, err := mcpserver.New(mcpserver.Config{Logger: quietLog(), ReadyWait: 50 * time.Millisecond,
		Open: func(ctx context.Context) (mcpserver.Store, error) {
			<-release
			return open(ctx)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer close(release)
	c := inProcess(t, s)
	if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	wantError(t, call(t, c, "search_apis", map[string]any{"query": "unstack"}), "still loading", "Retry")
}

func TestServer_IndexFailsToOpen(t *testing.T) {
	s, err := mcpserver.New(mcpserver.Config{IndexDir: t.TempDir(), Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := inProcess(t, s)
	wantError(t, call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack"}), "could not be opened")
}

// A pasted traceback longer than MaxQueryChars is cut, not refused: its
// middle goes, its error line (which names the API) stays, and the answer
// says so.
func TestSearch_LongPasteIsCut(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	frame := "  File \"/home/u/project/analysis/step.py\", line 42, in run\n    out = transform(frames, config)\n"
	q := "Traceback (most recent call last):\n" + strings.Repeat(frame, 40) + "AttributeError: use numpy.unstack instead"
	if len(q) <= mcpserver.MaxQueryChars {
		t.Fatalf("test query is only %d characters", len(q))
	}
	out, txt := search(t, c, map[string]any{"query": q})
	if len(out.Results) == 0 || out.Results[0].APIName != "numpy.unstack" {
		t.Errorf("first result %+v; want numpy.unstack, named on the error line", out.Results)
	}
	if !strings.Contains(txt, "were cut to its first and last 1000") {
		t.Errorf("the answer does not say the query was cut:\n%s", txt)
	}
}
