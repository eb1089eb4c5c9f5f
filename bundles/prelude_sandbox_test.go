package bundles

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/sandbox"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// An example's prelude takes a name from the library's public modules when
// one object has it: pydantic 2.10 (trixie-pydantic) defines SkipJsonSchema
// in pydantic.json_schema only, while Field is both pydantic.fields.Field and
// pydantic.v1's, so the public names leave it to the API's own module
// (py/mine.py PublicNames, with_prelude; ExtractRules 21).
func TestWithPrelude_PublicNames(t *testing.T) {
	runner := sandboxtest.Runner(t)
	env := sandboxtest.Env(t, "trixie-pydantic")
	prog := `import json, sys
sys.path.insert(0, "` + sandbox.JobDir + `")
import mine
public = mine.public_names("pydantic")
ctx = mine.context("pydantic.types.constr", "pydantic.types", "pydantic", public=public)
_, lines = mine.with_prelude("x = SkipJsonSchema[int]\ny = Field(gt=1)\nz = NoSuchName\n", ctx)
print(json.dumps({"lines": lines, "field": "Field" in public}))
`
	res, err := runner.Run(t.Context(), sandbox.Spec{
		Environment: env,
		Files: []sandbox.File{{Path: "mine.py", Data: script("mine.py")}, {Path: "pyobj.py", Data: script("pyobj.py")},
			{Path: "prog.py", Data: []byte(prog)}},
		Argv: []string{"python3", "-I", "-B", sandbox.JobDir + "/prog.py"},
		Env:  threadEnv,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	var got struct {
		Lines []string `json:"lines"`
		Field bool     `json:"field"`
	}
	if err := json.Unmarshal(res.Stdout, &got); err != nil {
		t.Fatalf("%v: %s", err, res.Stdout)
	}
	if len(got.Lines) != 2 || got.Lines[0] != "from pydantic.json_schema import SkipJsonSchema" ||
		strings.Contains(got.Lines[1], "v1") || !strings.HasSuffix(got.Lines[1], " import Field") {
		t.Errorf("prelude = %q; want SkipJsonSchema from pydantic.json_schema and Field from the API's module or pydantic", got.Lines)
	}
	if got.Field {
		t.Errorf("public names have Field; want it left out (pydantic.fields.Field and pydantic.v1.Field)")
	}
}
