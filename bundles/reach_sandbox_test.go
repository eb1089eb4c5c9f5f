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
	files, _ := filepath.Glob(filepath.Join(env.Root, "usr/lib/python3.*/json/__init__.py"))
	if len(files) != 1 {
		t.Fatalf("json/__init__.py of the environment: %v", files)
	}
	src, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "def dumps(") {
			line = i + 1
		}
	}
	codes, _ := json.Marshal([][]any{{"/" + strings.TrimPrefix(files[0], env.Root+"/"), line, "dumps"}})
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
