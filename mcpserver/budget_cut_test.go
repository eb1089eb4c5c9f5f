package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/mcpserver"
)

// Under a small budget a modified API never shows its previous signature
// while its current S is cut (an agent would copy the old one), and an
// answer that leaves components out for the budget says which, in its
// text (pandas.read_csv is modified in the fixture).
func TestBudget_CutKeepsCurrentSignature(t *testing.T) {
	c := inProcess(t, newServer(t, mcpserver.Config{}))
	const oldSig = "previous signature: (filepath_or_buffer"
	cutS, leftOut := 0, 0
	for budget := mcpserver.MinMaxTokens; budget <= 1200; budget += 25 {
		for _, tt := range []struct {
			tool string
			args map[string]any
		}{
			{"search_apis", map[string]any{"query": "read_csv dtype_backend", "library": "pandas", "k": 5, "max_tokens": budget}},
			{"get_api", map[string]any{"api_name": "pandas.read_csv", "components": []string{"Full"}, "max_tokens": budget}},
		} {
			res := call(t, c, tt.tool, tt.args)
			wantOK(t, res)
			txt := text(res)
			if strings.Contains(txt, "S truncated") {
				cutS++
				if strings.Contains(txt, oldSig) {
					t.Errorf("%s max_tokens=%d: previous signature shown while S is cut:\n%s", tt.tool, budget, txt)
				}
			}
			if tt.tool != "get_api" {
				continue
			}
			var out struct {
				Components   string  `json:"components"`
				OldSignature *string `json:"old_signature"`
			}
			structured(t, res, &out)
			if strings.Contains(txt, "S truncated") && out.OldSignature != nil {
				t.Errorf("get_api max_tokens=%d: manifest carries old_signature while S is cut", budget)
			}
			var missing []string
			for _, code := range []string{"S", "E", "M", "C"} {
				if !strings.Contains("+"+out.Components+"+", "+"+code+"+") {
					missing = append(missing, code)
				}
			}
			if len(missing) == 0 {
				continue
			}
			leftOut++
			if want := "left out to fit the budget: " + strings.Join(missing, ", ") + ";"; !strings.Contains(txt, want) {
				t.Errorf("get_api Full max_tokens=%d shows %s; text lacks %q:\n%s", budget, out.Components, want, txt)
			}
		}
	}
	if cutS == 0 || leftOut == 0 {
		t.Fatalf("no answer cut S (%d) or left components out (%d): the test no longer exercises the budget", cutS, leftOut)
	}
}
