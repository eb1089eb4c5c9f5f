package evalharness

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestPyStrip(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"ASCII", " \t x \n", "x"},
		{"FileSeparators", "\x1cx\x1f", "x"},
		{"NBSPAndEnQuad", "\u00a0x\u2000", "x"},
		{"ZeroWidthSpaceIsNotSpace", "\u200bx", "\u200bx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pyStrip(tt.in); got != tt.want {
				t.Errorf("pyStrip(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestPlanExtraction_Tiers(t *testing.T) {
	p := planExtraction("```python\na = 1\n```\n```text\nb = 2\n```")
	if len(p.Main) < 2 || p.Main[0].Step != 4 || p.Main[1].Step != 5 || p.Tail != nil {
		t.Fatalf("plan = %+v; want python tier then any-tag tier, no tail", p)
	}
	// With an oracle that accepts everything, the python block wins.
	if got := p.Select(func(string) bool { return true }); got != "a = 1" {
		t.Errorf("Select = %q; want %q", got, "a = 1")
	}
}

// TestExtract_Golden runs the §3 cases of testdata/extract in one sandbox
// run: Go's selection and the runner's own must both give the golden code.
func TestExtract_Golden(t *testing.T) {
	h := newTestHarness(t)
	paths, _ := filepath.Glob("testdata/extract/*.txtar")
	sort.Strings(paths)
	var responses []string
	var archives []archive
	for _, p := range paths {
		a := readTxtar(t, p)
		archives = append(archives, a)
		responses = append(responses, strings.TrimSuffix(a.Files["response"], "\n"))
	}
	env := sandboxtestEnv(t)
	goCodes, pyCodes, err := h.extractBatch(t.Context(), env, responses)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		want := strings.TrimSuffix(archives[i].Files["want"], "\n")
		if goCodes[i] != pyCodes[i] {
			t.Errorf("%s: Go extraction %q differs from the runner's %q", p, goCodes[i], pyCodes[i])
		}
		if *update {
			archives[i].Files["want"] = goCodes[i]
			if err := os.WriteFile(p, []byte(formatTxtar(archives[i])), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if goCodes[i] != want {
			t.Errorf("%s: extracted %q; want %q", p, goCodes[i], want)
		}
	}
}

// TestLostCode: the stand-in for the code of a run whose records were lost
// is the plan's choice with every candidate parsing, and empty only when
// no candidate holds code.
func TestLostCode(t *testing.T) {
	tests := []struct {
		name, response, code string
		empty                bool
	}{
		{"Fenced", "Here:\n```python\ndef f(x):\n    return pd.DataFrame(x)\n```\n", "def f(x):\n    return pd.DataFrame(x)", false},
		{"LongestOfTier", "```python\nx = 1\n```\n```python\ndef g():\n    return 2\n```", "def g():\n    return 2", false},
		{"Empty", "", "", true},
		{"Stub", "```python\ndef f(x):\n    pass\n```", "def f(x):\n    pass", true},
		{"ProseOnly", "Call DataFrame on the input.", "Call DataFrame on the input.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planExtraction(tt.response)
			o := runOutcome{Plan: &p}
			code, empty := o.lostCode()
			if code != tt.code || empty != tt.empty {
				t.Errorf("lostCode = %q, %v; want %q, %v", code, empty, tt.code, tt.empty)
			}
		})
	}
	o := runOutcome{Code: "print(1)"}
	if code, empty := o.lostCode(); code != "print(1)" || empty {
		t.Errorf("lostCode of a job's code = %q, %v", code, empty)
	}
}
