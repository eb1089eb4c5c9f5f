package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/mcpserver"
)

// A modified API whose previous signature and import paths alone exceed the
// smallest budget (pandas.read_csv's is 2,000 characters): search_apis and
// get_api leave the previous signature out (or cut the header) and cut the
// manifest to stay within max_tokens, and never quote a text budget of 0.
func TestBudget_LongHeader(t *testing.T) {
	bs, _, err := bundles.ReadBundles(fixtureBundles, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var params []string
	for i := range 80 {
		params = append(params, fmt.Sprintf("parameter_number_%02d: 'str | None' = None", i))
	}
	old := "(" + strings.Join(params, ", ") + ")"
	found := false
	for i := range bs {
		if bs[i].APIName == "pandas.read_csv" {
			bs[i].OldSignature, bs[i].IsModified, found = &old, true, true
			if bs[i].Provenance == nil {
				bs[i].Provenance = &bundles.Provenance{}
			}
			for j := range 30 {
				bs[i].Provenance.Aliases = append(bs[i].Provenance.Aliases, fmt.Sprintf("pandas.io.module_%02d.read_csv", j))
			}
		}
	}
	if !found {
		t.Fatal("fixture has no pandas.read_csv")
	}
	dir := filepath.Join(t.TempDir(), "index")
	if _, err := index.Build(context.Background(), dir, bs, index.BuildConfig{Logger: quietLog()}); err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (mcpserver.Store, error) {
		ix, err := index.Open(dir, index.OpenOptions{Logger: quietLog()})
		if err != nil {
			return nil, err
		}
		return mcpserver.NewIndexStore(ix), nil
	}
	c := inProcess(t, newServer(t, mcpserver.Config{Open: open}))
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"search_apis", map[string]any{"query": "pandas.read_csv", "k": 5, "max_tokens": 500}},
		{"get_api", map[string]any{"api_name": "pandas.read_csv", "max_tokens": 500}},
		{"get_api", map[string]any{"api_name": "pandas.read_csv", "max_tokens": 1000}},
	} {
		res := call(t, c, tt.tool, tt.args)
		wantOK(t, res)
		mj, _ := json.Marshal(res.StructuredContent)
		budget := tt.args["max_tokens"].(int)
		if total := tokens(text(res)) + tokens(string(mj)); total > budget {
			t.Errorf("%s %v: answer %d tokens (text %d + manifest %d) > %d:\n%s", tt.tool, tt.args, total, tokens(text(res)), tokens(string(mj)), budget, text(res))
		}
		for _, bad := range []string{" of 0 tokens", "-1 tokens"} {
			if strings.Contains(text(res), bad) {
				t.Errorf("%s %v: answer says %q:\n%s", tt.tool, tt.args, bad, text(res))
			}
		}
		// The long previous signature goes first (or with the cut header),
		// so the current S gets the room.
		cut := strings.Contains(text(res), "header cut") || strings.Contains(text(res), "previous signature: (left out to fit the budget)")
		if !strings.Contains(text(res), "handle: "+mcpserver.HandlePrefix+"pandas.read_csv") || !cut || strings.Contains(text(res), "parameter_number_00") {
			t.Errorf("%s %v: want the handle and the header cut or the previous signature left out:\n%s", tt.tool, tt.args, text(res))
		}
	}
}
