package mcpserver_test

// Tests for the issues a new-user tester reported: path restriction of
// evaluate, version validation, tool names in errors, snake_case output,
// real examples in schemas, protocol error codes, k handling and the call
// signature line.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/mcpserver"
)

func TestEvaluate_PathsRestrictedToRoots(t *testing.T) {
	root, runs, outside := t.TempDir(), t.TempDir(), t.TempDir()
	secret := "root:$y$j9T$SECRETHASH:19000:0:99999:7:::\n"
	for _, dir := range []string{root, outside} {
		if err := os.WriteFile(filepath.Join(dir, "shadow"), []byte(secret), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "shadow"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, newServer(t, mcpserver.Config{ReadRoots: []string{root}, Eval: mcpserver.EvalConfig{RunsDir: runs}, Harness: execHarness(t)}))
	preds := []any{map[string]any{"task_id": "t1", "completion": "x"}}
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"TasksOutside", map[string]any{"predictions": preds, "tasks_path": "/etc/shadow"}, []string{"tasks_path", "outside the directories", root, "--allow-path"}},
		{"TasksOutsideTemp", map[string]any{"predictions": preds, "tasks_path": filepath.Join(outside, "shadow")}, []string{"outside the directories"}},
		{"TasksDotDot", map[string]any{"predictions": preds, "tasks_path": filepath.Join(root, "..", filepath.Base(outside), "shadow")}, []string{"outside the directories"}},
		{"TasksSymlinkOut", map[string]any{"predictions": preds, "tasks_path": filepath.Join(root, "link")}, []string{"outside the directories"}},
		{"PredictionsOutside", map[string]any{"predictions_path": "/etc/passwd"}, []string{"predictions_path", "outside the directories"}},
		{"PredictionsMissingOutside", map[string]any{"predictions_path": "/nonexistent/p.jsonl"}, []string{"outside the directories"}},
		{"TasksInsideMissing", map[string]any{"predictions": preds, "tasks_path": filepath.Join(root, "nope.jsonl")}, []string{"does not exist"}},
		{"PredictionsInsideGarbage", map[string]any{"predictions_path": filepath.Join(root, "shadow"), "tasks_path": filepath.Join(root, "shadow")}, []string{"line 1 is not a valid record"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, c, "evaluate", tt.args)
			wantError(t, res, tt.want...)
			if got := text(res); strings.Contains(got, "SECRETHASH") || strings.Contains(got, "'r'") || strings.Contains(got, "root:") {
				t.Errorf("error echoes file content: %s", got)
			}
		})
	}
}

func TestVersion_GarbageRejectedWithExample(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"search_apis", map[string]any{"query": "numpy.unstack", "library": "numpy", "version": "garbage!!"}},
		{"search_apis", map[string]any{"query": "numpy.unstack", "version": ">=banana"}},
		{"get_api", map[string]any{"api_name": "numpy.unstack", "version": "garbage!!"}},
		{"get_api", map[string]any{"api_name": "novelapi://api/numpy.unstack@garbage!!"}},
	} {
		wantError(t, call(t, c, tt.tool, tt.args), tt.tool+": version", "is not a version", `"2.2.4"`, `"~=2.1"`)
	}
	// Valid forms still work.
	for _, v := range []string{"2.2.4", "2.2", "2.x", "~=2.1", ">=1.26,<3", "latest", "==2.2.*", "v2.2.4"} {
		wantOK(t, call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "version": v}))
	}
}

func TestRender_ErrorsNameTheTool(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	res := call(t, c, "render_condition", map[string]any{"api_name": "numpy.nothing", "condition": "S"})
	wantError(t, res)
	if !strings.HasPrefix(text(res), "render_condition: ") {
		t.Errorf("error = %q, want it to start with render_condition:", text(res))
	}
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// dataMaps are keys whose values are maps keyed by data (component codes,
// failure labels), not by field names.
var dataMaps = map[string]bool{"components": true, "labels": true}

// checkSnake fails on any object key of v that is not snake_case.
func checkSnake(t *testing.T, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeKey.MatchString(k) {
				t.Errorf("%s: key %q is not snake_case", path, k)
			}
			if m, ok := e.(map[string]any); ok && dataMaps[k] {
				for _, ee := range m {
					checkSnake(t, path+"."+k+".*", ee)
				}
				continue
			}
			checkSnake(t, path+"."+k, e)
		}
	case []any:
		for _, e := range x {
			checkSnake(t, path+"[]", e)
		}
	}
}

func TestOutput_SnakeCaseKeys(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"search_apis", map[string]any{"query": "numpy.unstack", "version": "2.x"}},
		{"search_apis", map[string]any{"query": "zzzz qqqq nothing"}},
		{"get_api", map[string]any{"api_name": "numpy.unstack", "version": "1.26"}},
		{"list_libraries", map[string]any{}},
		{"render_condition", map[string]any{"api_name": "numpy.unstack", "condition": "S+E"}},
	} {
		res := call(t, c, tt.tool, tt.args)
		wantOK(t, res)
		var v map[string]any
		structured(t, res, &v)
		checkSnake(t, tt.tool, v)
		if tt.tool == "get_api" {
			ver, _ := v["version"].(map[string]any)
			if _, ok := ver["served"]; !ok {
				t.Errorf("get_api version object = %v, want snake_case keys such as served", ver)
			}
		}
	}
}

// Every dotted API name quoted as an example in a tool's description or
// parameter descriptions is an API of the index (numpy.unstack, not the
// nonexistent pandas.DataFrame.case_when).
func TestTools_SchemaExamplesAreRealAPIs(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	quoted := regexp.MustCompile(`"((?:numpy|scipy|pandas|sklearn|pydantic)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:@[^"]*)?"`)
	checked := 0
	for _, tool := range tools.Tools {
		texts := []string{tool.Description}
		for _, p := range tool.InputSchema.Properties {
			if d, ok := p.(map[string]any)["description"].(string); ok {
				texts = append(texts, d)
			}
		}
		for _, txt := range texts {
			for _, m := range quoted.FindAllStringSubmatch(txt, -1) {
				checked++
				res := call(t, c, "get_api", map[string]any{"api_name": m[1]})
				var out struct {
					ResolvedVia string `json:"resolved_via"`
				}
				if res.IsError {
					t.Errorf("%s: example %q is not an API of the index: %s", tool.Name, m[1], text(res))
					continue
				}
				if structured(t, res, &out); out.ResolvedVia != "name" && out.ResolvedVia != "alias" {
					t.Errorf("%s: example %q only resolves via %s", tool.Name, m[1], out.ResolvedVia)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no example API names found in the tool schemas")
	}
}

func TestProtocolErrors_InvalidParamsAndNotFound(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	ctx := context.Background()
	var gp mcp.GetPromptRequest
	gp.Params.Name = mcpserver.PromptName
	gp.Params.Arguments = map[string]string{"library": "numpy"}
	_, err := c.GetPrompt(ctx, gp)
	if !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), `"task" is required`) {
		t.Errorf("prompts/get without task: err = %v, want invalid params (-32602) naming task", err)
	}
	for _, tt := range []struct{ uri, want string }{
		{"novelapi://api/numpy.nothing", "no novel API named"},
		{"novelapi://api/numpy.unstak", "Did you mean: numpy.unstack"},
		{"novelapi://api/numpy.unstack@garbage!!", "is not a version"},
	} {
		_, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: tt.uri}})
		if !errors.Is(err, mcp.ErrResourceNotFound) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("resources/read %s: err = %v, want resource not found (-32002) mentioning %q", tt.uri, err, tt.want)
		}
	}
	// Known APIs still read, also by handle.
	if _, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "novelapi://api/numpy.unstack@2.2.4"}}); err != nil {
		t.Errorf("resources/read of a handle: %v", err)
	}
}

// k ≤ 0 means the default, as in `novelapi search`, and the answer says so.
func TestSearch_NonPositiveKUsesDefault(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	for _, k := range []any{-5, 0, "-1"} {
		out, txt := search(t, c, map[string]any{"query": "array", "k": k, "components": []string{"S_name"}, "max_tokens": 20000})
		if len(out.Results)+len(out.Omitted) != mcpserver.DefaultK {
			t.Errorf("k=%v: %d results + %d omitted, want %d", k, len(out.Results), len(out.Omitted), mcpserver.DefaultK)
		}
		if !strings.Contains(txt, "default k=5") || len(out.Notes) == 0 {
			t.Errorf("k=%v: answer does not say k was adjusted: notes %v", k, out.Notes)
		}
	}
	out, _ := search(t, c, map[string]any{"query": "array", "k": 99})
	if !strings.Contains(strings.Join(out.Notes, ";"), "k=99 clamped to 20") {
		t.Errorf("k=99: notes %v", out.Notes)
	}
}

// S as served by search_apis and get_api carries the call signature with
// its positional-only and keyword-only markers when the implementation
// source gives it; render_condition stays exactly bundles.Render.
func TestSignatureLine_KindMarkers(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tests := []struct{ api, want string }{
		{"numpy.unstack", "Signature: numpy.unstack(x, /, *, axis=0)  (parameters before / are positional-only; parameters after * are keyword-only)"},
		{"scipy.differentiate.jacobian", "Signature: scipy.differentiate.jacobian(f, x, *, tolerances=None"},
		{"pandas.Series.case_when", "Signature: pandas.Series.case_when(caselist)\n"},
		{"pandas.DataFrame.map", "Signature: pandas.DataFrame.map(func, na_action=None, **kwargs)"},
	}
	for _, tt := range tests {
		res := call(t, c, "get_api", map[string]any{"api_name": tt.api})
		wantOK(t, res)
		if !strings.Contains(text(res), tt.want) {
			t.Errorf("get_api %s lacks %q:\n%s", tt.api, tt.want, text(res))
		}
	}
	_, txt := search(t, c, map[string]any{"query": "numpy.unstack", "k": 1})
	if !strings.Contains(txt, "API: numpy.unstack\nSignature: numpy.unstack(x, /, *, axis=0)") {
		t.Errorf("search_apis S lacks the signature line:\n%s", txt)
	}
	// No source, no line (numpy.bitwise_count is a ufunc).
	if res := call(t, c, "get_api", map[string]any{"api_name": "numpy.bitwise_count"}); strings.Contains(text(res), "Signature:") {
		t.Errorf("bitwise_count got a signature line without source:\n%s", text(res))
	}
	res := call(t, c, "render_condition", map[string]any{"api_name": "numpy.unstack", "condition": "S"})
	if strings.Contains(text(res), "Signature:") {
		t.Errorf("render_condition changed the protocol's S:\n%s", text(res))
	}
}

// A missing index names the exact command that builds one.
func TestMissingIndex_GivesBuildCommand(t *testing.T) {
	s, err := mcpserver.New(mcpserver.Config{IndexDir: filepath.Join(t.TempDir(), "no-index"), Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Ready(context.Background()); err == nil {
		t.Fatal("a missing index loaded")
	}
	res := call(t, inProcess(t, s), "search_apis", map[string]any{"query": "numpy.unstack"})
	wantError(t, res, "novelapi index build --bundles FILE --index DIR", "novelapi up")
}
