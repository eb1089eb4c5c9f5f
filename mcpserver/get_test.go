package mcpserver_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
)

// ambiguousBundles are real bundles whose short names designate several
// APIs: unstack (numpy, pandas.Series, pandas.DataFrame) and map
// (pandas.DataFrame, pandas.Categorical).
const ambiguousBundles = "testdata/ambiguous/bundles.jsonl"

// get_api resolves the short spellings that search_apis' exact-name rule
// resolves: import aliases, Class.method suffixes, bare leaves and handles
// without their prefix.
func TestGetAPI_ExactNameRule(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tests := []struct {
		name, apiName, library string
		want, wantVersion      string
		wantNote               string
	}{
		{"ImportAlias", "np.unique_counts", "", "numpy.unique_counts", "2.2.4", `"np.unique_counts" resolved to numpy.unique_counts`},
		{"ImportAliasClassMethod", "pd.DataFrame.map", "", "pandas.DataFrame.map", "2.2.3", `"pd.DataFrame.map" resolved to pandas.DataFrame.map`},
		{"ClassMethod", "DataFrame.map", "", "pandas.DataFrame.map", "2.2.3", `"DataFrame.map" resolved to pandas.DataFrame.map`},
		{"Leaf", "unique_counts", "", "numpy.unique_counts", "2.2.4", `"unique_counts" resolved to numpy.unique_counts`},
		{"BareHandle", "numpy.unstack@2.1.3", "", "numpy.unstack", "2.1.3", ""},
		{"BareHandleAlias", "np.unstack@2.1.3", "", "numpy.unstack", "2.1.3", `"np.unstack" resolved to numpy.unstack`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, c, "get_api", getAPIArgs(tt.apiName, tt.library))
			wantOK(t, res)
			var out struct {
				APIName string `json:"api_name"`
				Version struct{ Served string }
			}
			structured(t, res, &out)
			if out.APIName != tt.want || out.Version.Served != tt.wantVersion {
				t.Errorf("get_api(%q) = %s %s, want %s %s", tt.apiName, out.APIName, out.Version.Served, tt.want, tt.wantVersion)
			}
			if !strings.Contains(text(res), "API: "+tt.want) {
				t.Errorf("get_api(%q) does not serve %s:\n%s", tt.apiName, tt.want, text(res))
			}
			if tt.wantNote != "" && !strings.Contains(text(res), tt.wantNote) {
				t.Errorf("get_api(%q) does not say %q:\n%s", tt.apiName, tt.wantNote, text(res))
			}
		})
	}
	// A garbage version after "@" is refused as one, not as an unknown name.
	wantError(t, call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack@garbage!!"}), "is not a version")
}

// A short name that designates several APIs lists their handles and asks
// to pick one, instead of saying that no API has that name.
func TestGetAPI_AmbiguousName(t *testing.T) {
	c := inProcess(t, serverOver(t, ambiguousBundles, mcpserver.Config{}))
	tests := []struct {
		name, apiName, library string
		want, notWant          []string
	}{
		{"LeafInLibrary", "unstack", "pandas",
			[]string{`"unstack" names 2 novel APIs in pandas`, "novelapi://api/pandas.Series.unstack@", "novelapi://api/pandas.DataFrame.unstack@", "call get_api again"},
			[]string{"numpy.unstack", "no novel API named"}},
		{"LeafEverywhere", "unstack", "",
			[]string{`"unstack" names 3 novel APIs`, "novelapi://api/numpy.unstack@2.2.4", "novelapi://api/pandas.Series.unstack@", "novelapi://api/pandas.DataFrame.unstack@"},
			[]string{"no novel API named"}},
		{"Method", "map", "pandas",
			[]string{`"map" names 2 novel APIs in pandas`, "novelapi://api/pandas.DataFrame.map@", "novelapi://api/pandas.Categorical.map@"},
			[]string{"no novel API named"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, c, "get_api", getAPIArgs(tt.apiName, tt.library))
			wantError(t, res, tt.want...)
			for _, nw := range tt.notWant {
				if strings.Contains(text(res), nw) {
					t.Errorf("get_api(%q, library=%q) mentions %q:\n%s", tt.apiName, tt.library, nw, text(res))
				}
			}
		})
	}
	// Once narrowed, the same index serves the one API.
	res := call(t, c, "get_api", map[string]any{"api_name": "DataFrame.unstack"})
	wantOK(t, res)
	if !strings.Contains(text(res), "API: pandas.DataFrame.unstack") {
		t.Errorf("DataFrame.unstack:\n%s", text(res))
	}
}

// get_api's version line names the match once, without nested
// parentheses ("(exact match (requested 2.2.4, served 2.2.4))").
func TestGetAPI_VersionLine(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tests := []struct{ version, want string }{
		{"2.2.4", "library numpy 2.2.4 (exact match) · "},
		{"==2.2.4", "library numpy 2.2.4 (exact match for requested ==2.2.4) · "},
		{"2.2", "library numpy 2.2.4 (range match for requested 2.2) · "},
	}
	for _, tt := range tests {
		res := call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "version": tt.version})
		wantOK(t, res)
		if txt := text(res); !strings.Contains(txt, tt.want) || strings.Contains(txt, "match (requested") {
			t.Errorf("get_api version %q: want %q, no nested parentheses:\n%s", tt.version, tt.want, txt)
		}
	}
}

// resources/read resolves an API URI's short spellings as get_api does.
func TestReadResource_ExactNameRule(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	tests := []struct{ uri, want string }{
		{"novelapi://api/np.unstack", "API: numpy.unstack"},
		{"novelapi://api/np.unstack@2.1.3", "library numpy 2.1.3"},
		{"novelapi://api/DataFrame.map", "API: pandas.DataFrame.map"},
		{"novelapi://api/unique_counts", "API: numpy.unique_counts"},
	}
	for _, tt := range tests {
		res, err := c.ReadResource(t.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: tt.uri}})
		if err != nil {
			t.Errorf("resources/read %s: %v", tt.uri, err)
			continue
		}
		if txt := res.Contents[0].(mcp.TextResourceContents).Text; !strings.Contains(txt, tt.want) {
			t.Errorf("resources/read %s lacks %q:\n%s", tt.uri, tt.want, txt)
		}
	}
	// A short name several APIs share lists them instead.
	amb := inProcess(t, serverOver(t, ambiguousBundles, mcpserver.Config{}))
	_, err := amb.ReadResource(t.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "novelapi://api/unstack"}})
	if err == nil || !strings.Contains(err.Error(), `"unstack" names 3 novel APIs`) {
		t.Errorf("resources/read of an ambiguous name: err = %v", err)
	}
}

// getAPIArgs returns get_api's arguments for name, with library when set.
func getAPIArgs(name, library string) map[string]any {
	args := map[string]any{"api_name": name}
	if library != "" {
		args["library"] = library
	}
	return args
}

// A deprecated name the bundle records as replaced (Provenance.Replaces)
// leads get_api and search_apis to the new API, whose header says what it
// replaces.
func TestGetAPI_DeprecatedNameLeadsToReplacement(t *testing.T) {
	c := inProcess(t, serverOverEdited(t, ambiguousBundles, func(bs []bundles.Bundle) []bundles.Bundle {
		for i := range bs {
			if bs[i].APIName == "pandas.DataFrame.map" {
				bs[i].Provenance.Replaces = []string{"pandas.core.frame.DataFrame.applymap", "pandas.DataFrame.applymap"}
			}
		}
		return bs
	}))
	res := call(t, c, "get_api", getAPIArgs("pd.DataFrame.applymap", ""))
	wantOK(t, res)
	if txt := text(res); !strings.Contains(txt, "API: pandas.DataFrame.map") || !strings.Contains(txt, "replaces (deprecated in this release): pandas.DataFrame.applymap") {
		t.Errorf("get_api(pd.DataFrame.applymap):\n%s\nwant pandas.DataFrame.map with its replaces line", txt)
	}
	out, _ := search(t, c, map[string]any{"query": "AttributeError: 'DataFrame' object has no attribute 'applymap'"})
	if len(out.Results) == 0 || out.Results[0].APIName != "pandas.DataFrame.map" {
		t.Errorf("search for the AttributeError: %+v; want pandas.DataFrame.map first", out.Results)
	}
}

// A name the release notes say a release of the span removed is said
// apart from the deprecated ones (pandas 3.0.0's notes: "Removed
// DataFrame.applymap, Styler.applymap and Styler.applymap_index").
func TestGetAPI_RemovedNameSaidApart(t *testing.T) {
	c := inProcess(t, serverOverEdited(t, ambiguousBundles, func(bs []bundles.Bundle) []bundles.Bundle {
		for i := range bs {
			if bs[i].APIName == "pandas.DataFrame.map" {
				bs[i].Provenance.Replaces = []string{"pandas.DataFrame.applymap"}
				bs[i].Provenance.ReplacesNotes = []bundles.NoteLink{{Path: "pandas.DataFrame.applymap", Version: "3.0.0",
					File: "/usr/share/doc/python-pandas-doc/html/_sources/whatsnew/v3.0.0.rst.txt", Line: 1030, Removed: true}}
			}
		}
		return bs
	}))
	res := call(t, c, "get_api", getAPIArgs("pd.DataFrame.applymap", ""))
	wantOK(t, res)
	if txt := text(res); !strings.Contains(txt, "replaces (removed by this release): pandas.DataFrame.applymap") || strings.Contains(txt, "deprecated in this release") {
		t.Errorf("get_api(pd.DataFrame.applymap):\n%s\nwant pandas.DataFrame.map replacing the removed name", txt)
	}
}

// get_api finds a scipy.stats distribution by its public instance's name
// (Provenance.Instances) and says in the header that the instance is the
// name to call.
func TestGetAPI_InstanceName(t *testing.T) {
	c := inProcess(t, serverOver(t, "../index/testdata/instances.jsonl", mcpserver.Config{}))
	res := call(t, c, "get_api", getAPIArgs("scipy.stats.triang", ""))
	wantOK(t, res)
	txt := text(res)
	if !strings.Contains(txt, "API: scipy.stats.distributions.triang_gen") ||
		!strings.Contains(txt, "call through the public instance: scipy.stats.triang, scipy.stats.distributions.triang") {
		t.Errorf("get_api(scipy.stats.triang):\n%s\nwant triang_gen with its instance line", txt)
	}
	if !strings.Contains(txt, "from scipy.stats import triang") {
		t.Errorf("get_api(scipy.stats.triang):\n%s\nwant the instance's example", txt)
	}
	if !strings.Contains(txt, "triang's methods (its docstring): rvs(c, loc=0, scale=1, size=1, random_state=None); pdf(x, c, loc=0, scale=1);") {
		t.Errorf("get_api(scipy.stats.triang):\n%s\nwant the instance's documented call forms", txt)
	}
	var got struct {
		Instances []string `json:"instances"`
	}
	structured(t, res, &got)
	if len(got.Instances) == 0 || got.Instances[0] != "scipy.stats.triang" {
		t.Errorf("get_api structured instances = %v; want scipy.stats.triang first", got.Instances)
	}
	// search_apis: an inherited method of the instance names the class, and
	// the result says which instance to call.
	out, _ := search(t, c, map[string]any{"query": "sp.stats.cauchy.pdf(x)"})
	if len(out.Results) == 0 || out.Results[0].APIName != "scipy.stats.distributions.cauchy_gen" ||
		len(out.Results[0].Instances) == 0 || out.Results[0].Instances[0] != "scipy.stats.cauchy" {
		t.Errorf("search_apis(sp.stats.cauchy.pdf(x)) results = %+v; want cauchy_gen first with its instance", out.Results)
	}
	// render_condition resolves the name as get_api does.
	res = call(t, c, "render_condition", map[string]any{"api_name": "scipy.stats.cauchy", "condition": "S+E"})
	wantOK(t, res)
	if txt := text(res); !strings.Contains(txt, "from scipy.stats import cauchy") {
		t.Errorf("render_condition(scipy.stats.cauchy, S+E):\n%s\nwant cauchy_gen's rendering with its example", txt)
	}
}

// A modified API's header says what changed in its parameters, so an agent
// need not diff the previous and current signatures itself.
func TestGetAPI_WhatChanged(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	res := call(t, c, "get_api", getAPIArgs("pandas.read_csv", ""))
	wantOK(t, res)
	if txt := text(res); !strings.Contains(txt, "what changed: added dtype_backend='numpy_nullable'") {
		t.Errorf("get_api(pandas.read_csv):\n%s\nwant the what-changed line", txt)
	}
}

// A public instance's name resolves to its class even when another API's
// name differs from it only in case (scipy.stats.uniform, the instance of
// uniform_gen, and the class scipy.stats.Uniform): the exact-name rule
// ignores case, the instance list does not.
func TestGetAPI_InstanceNameBeatsCaseTwin(t *testing.T) {
	c := inProcess(t, serverOverEdited(t, "../index/testdata/instances.jsonl", func(bs []bundles.Bundle) []bundles.Bundle {
		for _, b := range bs {
			if b.APIName == "scipy.stats.distributions.cauchy_gen" {
				twin := b
				twin.APIName, twin.SName = "scipy.stats.Cauchy", "scipy.stats.Cauchy"
				p := *b.Provenance
				p.Instances, p.InstanceMethods, p.Aliases = nil, nil, nil
				twin.Provenance = &p
				return append(bs, twin)
			}
		}
		return bs
	}))
	res := call(t, c, "get_api", getAPIArgs("scipy.stats.cauchy", ""))
	wantOK(t, res)
	if txt := text(res); !strings.Contains(txt, "API: scipy.stats.distributions.cauchy_gen") ||
		!strings.Contains(txt, "scipy.stats.cauchy is a public instance of scipy.stats.distributions.cauchy_gen") {
		t.Errorf("get_api(scipy.stats.cauchy):\n%s\nwant cauchy_gen, whose instance it is, and a note saying so", txt)
	}
}

// serverOverEdited serves the bundles of path after edit, written to a
// temporary file.
func serverOverEdited(t *testing.T, path string, edit func([]bundles.Bundle) []bundles.Bundle) *mcpserver.Server {
	t.Helper()
	bs, _, err := bundles.ReadBundles(path, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edited := filepath.Join(t.TempDir(), "bundles.jsonl")
	if err := bundles.WriteBundles(edited, edit(bs)); err != nil {
		t.Fatal(err)
	}
	return serverOver(t, edited, mcpserver.Config{})
}
