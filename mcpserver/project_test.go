package mcpserver_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/mcpserver"
)

// projects are the project files of package project's tests: the
// requirements real Debian packages declare, in each format.
var projects, _ = filepath.Abs("../project/testdata")

// search_apis and get_api serve the version the agent's project declares
// (docs/projects.md), over the fixture index (numpy 2.1.3 and 2.2.4, from
// real bundles), and name the file and line it came from.
func TestProject_Versions(t *testing.T) {
	// bookworm's python3-numpy 1.24.2, pinned: not indexed.
	pinned := t.TempDir()
	if err := os.WriteFile(filepath.Join(pinned, "requirements.txt"), []byte("numpy==1.24.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, newServer(t, mcpserver.Config{ReadRoots: []string{projects, pinned}}))
	tests := []struct {
		name, project         string
		wantServed, wantMatch string
		wantFrom              string
		wantText              []string
	}{
		{"InstalledVenv", filepath.Join(projects, "venv"), "2.2.4", "exact",
			".venv/lib/python3.13/site-packages/numpy-2.2.4.dist-info/METADATA:3",
			[]string{"exact match for the project's .venv/lib/python3.13/site-packages/numpy-2.2.4.dist-info/METADATA:3", "declares numpy 2.2.4: exact match, 2.2.4 served"}},
		{"RequirementsRanges", filepath.Join(projects, "requirements"), "2.2.4", "range",
			"requirements.txt:3, requirements.txt:4, requirements.txt:5, requirements-scipy.txt:2",
			[]string{"numpy<2.5,>=1.23.5: 2.2.4, the newest indexed version it allows, is served"}},
		{"PyprojectRange", filepath.Join(projects, "pyproject"), "2.2.4", "range", "pyproject.toml:9",
			[]string{"range match for the project's pyproject.toml:9"}},
		{"UVLock", filepath.Join(projects, "uv"), "2.2.4", "range", "uv.lock:16", []string{"declares numpy 2.1.3 | 2.2.4"}},
		{"PoetryLock", filepath.Join(projects, "poetry"), "2.2.4", "exact", "poetry.lock:5", nil},
		{"PinNotIndexed", pinned, "2.1.3", "approximate", "requirements.txt:1",
			[]string{"APPROXIMATE: the version the project's requirements.txt:1 declares is not indexed",
				"no indexed version satisfies numpy==1.24.2 (indexed: 2.1.3, 2.2.4); 2.1.3, the nearest to 1.24.2, is served"}},
		{"UnreadableLine", filepath.Join(projects, "bad"), "2.2.4", "approximate", "requirements.txt:2",
			[]string{`requirements.txt:2 could not be read (requirement "numpy>=2.x": version specifier ">=2.x" is not PEP 440)`,
				`requirements.txt:3: "./vendor/orbit" installs a path or URL that names no distribution`}},
		{"None", "", "2.2.4", "latest", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"query": "unstack an array along an axis", "library": "numpy"}
			if tt.project != "" {
				args["project"] = tt.project
			}
			res := call(t, c, "search_apis", args)
			wantOK(t, res)
			var out struct {
				Version struct{ Served, Match, From string }
				Results []struct{ Version, Match, From string }
			}
			structured(t, res, &out)
			if out.Version.Served != tt.wantServed || out.Version.Match != tt.wantMatch || out.Version.From != tt.wantFrom {
				t.Errorf("search_apis version = %+v; want %s %s from %q\n%s", out.Version, tt.wantServed, tt.wantMatch, tt.wantFrom, text(res))
			}
			for _, r := range out.Results {
				if r.Version != tt.wantServed || r.From != tt.wantFrom {
					t.Errorf("result served %s from %q; want %s from %q", r.Version, r.From, tt.wantServed, tt.wantFrom)
				}
			}
			for _, w := range tt.wantText {
				if !strings.Contains(text(res), w) {
					t.Errorf("search_apis does not say %q:\n%s", w, text(res))
				}
			}

			// get_api of numpy.unstack, indexed at both versions.
			gargs := map[string]any{"api_name": "numpy.unstack"}
			if tt.project != "" {
				gargs["project"] = tt.project
			}
			res = call(t, c, "get_api", gargs)
			wantOK(t, res)
			var g struct {
				Version struct{ Served, Match, From string }
			}
			structured(t, res, &g)
			if g.Version.Served != tt.wantServed || g.Version.Match != tt.wantMatch || g.Version.From != tt.wantFrom {
				t.Errorf("get_api version = %+v; want %s %s from %q\n%s", g.Version, tt.wantServed, tt.wantMatch, tt.wantFrom, text(res))
			}
		})
	}

	// An explicit version wins over the project.
	res := call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "version": "2.1.3", "project": filepath.Join(projects, "venv")})
	var g struct {
		Version struct{ Served, Match, From string }
	}
	structured(t, res, &g)
	if g.Version.Served != "2.1.3" || g.Version.From != "" {
		t.Errorf("explicit version under a project: %+v", g.Version)
	}
	// A library the project does not declare: the latest, and the answer says so.
	res = call(t, c, "search_apis", map[string]any{"query": "case_when", "library": "pandas", "project": filepath.Join(projects, "pyproject")})
	wantOK(t, res)
	if !strings.Contains(text(res), "does not declare it (read: pyproject.toml)") {
		t.Errorf("pandas under a project that does not declare it:\n%s", text(res))
	}
}

// A project file that does not parse, a directory outside the server's
// read roots, and a file are refused with a tool error naming them.
func TestProject_Refused(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{ReadRoots: []string{projects}}))
	wantError(t, call(t, c, "search_apis", map[string]any{"query": "unstack", "project": filepath.Join(projects, "badtoml")}),
		"pyproject.toml:5: expected a comma", "does not parse")
	wantError(t, call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "project": t.TempDir()}),
		"is outside the directories this server reads files from")
	wantError(t, call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "project": filepath.Join(projects, "bad", "requirements.txt")}),
		"is not a directory")
}

// serve --project: calls without a project argument get its versions.
func TestProject_ServerDefault(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{Project: filepath.Join(projects, "venv")}))
	res := call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack"})
	var g struct {
		Version struct{ Served, Match, From string }
	}
	structured(t, res, &g)
	if g.Version.Served != "2.2.4" || g.Version.Match != "exact" || !strings.HasSuffix(g.Version.From, "numpy-2.2.4.dist-info/METADATA:3") {
		t.Errorf("get_api under serve --project: %+v\n%s", g.Version, text(res))
	}
	// A search over all libraries says where each served version came from.
	res = call(t, c, "search_apis", map[string]any{"query": "unstack an array into a tuple"})
	if !strings.Contains(text(res), "numpy: the project's .venv/lib/python3.13/site-packages/numpy-2.2.4.dist-info/METADATA:3 declares numpy 2.2.4") {
		t.Errorf("search over all libraries under serve --project:\n%s", text(res))
	}
}

// Unreadable project lines are capped notes, counted in the budget
// (docs/projects.md §2): 150 "-e" lines that name no distribution beside
// a pin of numpy add nothing to an answer about numpy, and 200 KB of bytes
// that are no requirements file add three short notes and a count.
func TestProject_NotesBudget(t *testing.T) {
	many := t.TempDir()
	var sb strings.Builder
	sb.WriteString("numpy==2.2.4\n")
	for i := range 150 {
		fmt.Fprintf(&sb, "-e ./packages/component-%d\n", i)
	}
	if err := os.WriteFile(filepath.Join(many, "requirements.txt"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	junk := t.TempDir()
	data := make([]byte, 200<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	if err := os.WriteFile(filepath.Join(junk, "requirements.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, newServer(t, mcpserver.Config{ReadRoots: []string{many, junk}}))
	var out struct {
		Tokens int
		Notes  []string
	}
	res := call(t, c, "search_apis", map[string]any{"query": "unstack an array along an axis", "k": 3, "project": many, "max_tokens": 1000})
	wantOK(t, res)
	structured(t, res, &out)
	if strings.Contains(text(res), "component-") || out.Tokens > 1000 || len(text(res)) > 4000 {
		t.Errorf("search_apis under 150 -e lines: %d tokens, %d characters:\n%s", out.Tokens, len(text(res)), text(res))
	}

	res = call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack", "project": junk, "max_tokens": 500})
	wantOK(t, res)
	structured(t, res, &out)
	if out.Tokens > 500 || len(text(res)) > 2000 {
		t.Errorf("get_api under a requirements.txt of random bytes: %d tokens, %d characters:\n%s", out.Tokens, len(text(res)), text(res))
	}
	if n := strings.Count(text(res), "NOTE: project "); n > mcpserver.MaxProjectNotes+1 || !strings.Contains(text(res), "more unreadable lines in requirements.txt") {
		t.Errorf("get_api under a requirements.txt of random bytes: %d project notes, want %d and a count:\n%s", n, mcpserver.MaxProjectNotes+1, text(res))
	}
}

// serve --project of a missing path or a file fails at startup; a default
// project that does not parse is a NOTE on each answer, which serves the
// latest versions, not a tool error; and an explicit version wins over a
// project that does not parse (docs/projects.md §2, §3).
func TestProject_ServerDefaultBroken(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), filepath.Join(projects, "bad", "requirements.txt")} {
		if _, err := mcpserver.New(mcpserver.Config{Open: openFixture(t), Logger: quietLog(), Project: dir}); err == nil {
			t.Errorf("New with Project %s: no error", dir)
		}
	}
	badtoml := filepath.Join(projects, "badtoml")
	c := inProcess(t, newServer(t, mcpserver.Config{Project: badtoml}))
	res := call(t, c, "search_apis", map[string]any{"query": "unstack an array along an axis", "library": "numpy"})
	wantOK(t, res)
	if !strings.Contains(text(res), "NOTE: the server's project "+badtoml+": pyproject.toml:5:") || !strings.Contains(text(res), "the latest indexed versions are served") {
		t.Errorf("search_apis under a default project that does not parse:\n%s", text(res))
	}
	var g struct {
		Version struct{ Served, Match string }
	}
	res = call(t, c, "get_api", map[string]any{"api_name": "numpy.unstack"})
	wantOK(t, res)
	structured(t, res, &g)
	if g.Version.Served != "2.2.4" || !strings.Contains(text(res), "does not parse") {
		t.Errorf("get_api under a default project that does not parse: %+v\n%s", g.Version, text(res))
	}
	for _, args := range []map[string]any{
		{"api_name": "numpy.unstack", "version": "2.1.3"},
		{"api_name": "numpy.unstack", "version": "2.1.3", "project": badtoml},
	} {
		res = call(t, c, "get_api", args)
		wantOK(t, res)
		structured(t, res, &g)
		if g.Version.Served != "2.1.3" || g.Version.Match != "exact" {
			t.Errorf("get_api %v: %+v\n%s", args, g.Version, text(res))
		}
	}
}
