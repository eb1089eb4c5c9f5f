package bundles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// py/reach.py tells an example that runs a function's own code from one
// that calls another object: json.dumps of the environment's Python
// (trixie-sci) is reached by json.dumps([1]), not by json.loads("1").
func TestReach_JSONDumps(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	dir := jsonPackage(t, env)
	src, err := os.ReadFile(filepath.Join(env.Root, dir, "__init__.py"))
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "def dumps(") {
			line = i + 1
		}
	}
	codes, _ := json.Marshal([][]any{{dir + "__init__.py", line, "dumps"}})
	tests := []struct {
		name, code string
		want       bool
	}{
		{"Calls", "import json\nprint(json.dumps([1]))\n", true},
		{"OtherObject", "import json\nprint(json.loads('1'))\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runner.Run(t.Context(), sandbox.Spec{
				Environment: env,
				Files: []sandbox.File{{Path: "reach.py", Data: script("reach.py")}, {Path: "codes.json", Data: codes},
					{Path: "example.py", Data: []byte(tt.code)}},
				Argv: []string{"python3", "-I", "-B", sandbox.JobDir + "/reach.py", sandbox.JobDir + "/codes.json",
					sandbox.JobDir + "/example.py", sandbox.OutDir + "/reached"},
				Env: threadEnv,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			if got := string(res.Outputs["reached"]) == "reached"; got != tt.want {
				t.Errorf("reached = %v; want %v (stdout %q)", got, tt.want, res.Stdout)
			}
		})
	}
}

// With "record", py/reach.py also lists every code object under a
// directory that started while the example ran: json.dumps([1]) starts
// json/__init__.py's dumps and json/encoder.py's encode, json.loads does not.
func TestReach_Record(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-sci")
	dir := jsonPackage(t, env)
	spec, _ := json.Marshal(map[string]any{"codes": []any{}, "record": dir})
	res, err := runner.Run(t.Context(), sandbox.Spec{
		Environment: env,
		Files: []sandbox.File{{Path: "reach.py", Data: script("reach.py")}, {Path: "codes.json", Data: spec},
			{Path: "example.py", Data: []byte("import json\nprint(json.dumps([1]))\n")}},
		Argv: []string{"python3", "-I", "-B", sandbox.JobDir + "/reach.py", sandbox.JobDir + "/codes.json",
			sandbox.JobDir + "/example.py", sandbox.OutDir + "/reached"},
		Env: threadEnv,
	})
	if err != nil {
		t.Fatal(err)
	}
	var started [][]any
	if err := json.Unmarshal(res.Outputs["reached.codes"], &started); err != nil {
		t.Fatalf("reached.codes: %v (exit %d, %s)", err, res.ExitCode, res.Stderr)
	}
	names := map[string]bool{}
	for _, c := range started {
		if len(c) != 3 || !strings.HasPrefix(c[0].(string), dir) {
			t.Errorf("started %v: want [file under %s, line, name]", c, dir)
			continue
		}
		names[filepath.Base(c[0].(string))+":"+c[2].(string)] = true
	}
	if !names["__init__.py:dumps"] || !names["encoder.py:encode"] || names["__init__.py:loads"] {
		t.Errorf("started %v; want dumps and encode, not loads", names)
	}
	if _, ok := res.Outputs["reached"]; ok {
		t.Errorf("reached written with no codes to reach")
	}
}

// jsonPackage returns the directory of the json package of env's Python as
// its programs see it ("/usr/lib/python3.13/json/").
func jsonPackage(t *testing.T, env *sandbox.Environment) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(env.Root, "usr/lib/python3.*/json"))
	if len(dirs) != 1 {
		t.Fatalf("json package of the environment: %v", dirs)
	}
	return "/" + strings.TrimPrefix(dirs[0], env.Root+"/") + "/"
}
