package mcpserver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/sandbox/sandboxtest"
)

// check_code runs an API's code in the environment its bundle was
// extracted in, not in the library's default one: numpy.unstack (new in
// numpy 2.1) extracted in trixie-sci passes there while the harness's
// default for numpy is bookworm-sci (numpy 1.24, no unstack). A bundle
// whose environment is not built here runs in the default, and the answer
// says so.
func TestCheckCode_SandboxBundleEnvironment(t *testing.T) {
	r := sandboxtest.Runner(t)
	sandboxtest.Env(t, "trixie-sci")
	sandboxtest.Env(t, "bookworm-sci")
	store := debenv.OpenStore(sandboxtest.Home())
	harness := func(context.Context) (*evalharness.Harness, error) {
		return evalharness.New(evalharness.Config{Runner: r, Store: store,
			EnvNames: map[string]string{"numpy": "bookworm-sci"}, Log: quietLog()})
	}
	const code = "import numpy as np\nparts = np.unstack(np.arange(6).reshape(2, 3))\nprint(len(parts), parts[1])"
	for _, tt := range []struct {
		name, env, wantEnv string
		pass               bool
		note               string
	}{
		{"BundleEnvironment", "trixie-sci", "trixie-sci", true, ""},
		{"NotBuilt", "no-such-env", "", false, "the bundle's environment no-such-env is not built on this machine"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bs, _, err := bundles.ReadBundles("../index/testdata/bundles.jsonl", jsonl.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range bs {
				if bs[i].APIName == "numpy.unstack" {
					bs[i].Provenance.Environment = tt.env
				}
			}
			path := filepath.Join(t.TempDir(), "bundles.jsonl")
			if err := bundles.WriteBundles(path, bs); err != nil {
				t.Fatal(err)
			}
			c := inProcess(t, serverOver(t, path, mcpserver.Config{Harness: harness}))
			res := call(t, c, "check_code", map[string]any{"code": code, "api_name": "numpy.unstack"})
			wantOK(t, res)
			var out struct {
				checkOut
				Environment     string `json:"environment"`
				EnvironmentNote string `json:"environment_note"`
			}
			structured(t, res, &out)
			txt := text(res)
			if pass := out.Ran && out.TargetCalled; pass != tt.pass || out.Environment != tt.wantEnv {
				t.Errorf("check_code ran in %q, pass %v (%s); want %q, pass %v\n%s", out.Environment, pass, out.Label, tt.wantEnv, tt.pass, txt)
			}
			if tt.note != "" && (!strings.Contains(out.EnvironmentNote, tt.note) || !strings.Contains(txt, "NOTE: "+tt.note)) {
				t.Errorf("answer does not say where the code ran: %q\n%s", out.EnvironmentNote, txt)
			}
			if tt.note == "" && out.EnvironmentNote != "" {
				t.Errorf("unexpected note %q", out.EnvironmentNote)
			}
		})
	}
}
