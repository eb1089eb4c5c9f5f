package evalharness

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/llm/llmtest"
	"github.com/novelapi/novelapi/pool"
)

// taxonomyFacts is the JSON of a testdata/taxonomy case.
type taxonomyFacts struct {
	API       string     `json:"api"`
	Code      string     `json:"code"`
	Stderr    string     `json:"stderr"`
	TimedOut  bool       `json:"timed_out"`
	Exception *excRecord `json:"exception"`
	Spy       *spyRecord `json:"spy"`
	SpyOff    bool       `json:"spy_off"`
	// CodeLost: the run's records were lost (Code is the stand-in).
	CodeLost  bool `json:"code_lost"`
	CodeEmpty bool `json:"code_empty"`
}

func (tf taxonomyFacts) facts() *failureFacts {
	f := &failureFacts{
		Task:     &pool.Task{TaskID: "t", APIName: tf.API, Description: "do it"},
		Code:     tf.Code,
		Stderr:   truncateRunes(tf.Stderr, StderrKeep),
		TimedOut: tf.TimedOut,
		Recs:     &runRecords{Exception: tf.Exception, Spy: tf.Spy},
		CodeLost: tf.CodeLost, CodeEmpty: tf.CodeEmpty,
	}
	if tf.SpyOff {
		off := false
		f.Task.SpyRequired = &off
	}
	f.ExcType = exceptionType(tf.Stderr)
	if tf.TimedOut {
		f.ExcType = "Timeout"
	}
	return f
}

// TestClassify_Golden runs both taxonomies (no judge) on the cases of
// testdata/taxonomy: want (runtime) and protocol are "<label> <rule>".
func TestClassify_Golden(t *testing.T) {
	h := &Harness{log: slog.Default()}
	paths, _ := filepath.Glob("testdata/taxonomy/*.txtar")
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatal("no cases")
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			a := readTxtar(t, p)
			var tf taxonomyFacts
			if err := json.Unmarshal([]byte(a.Files["facts.json"]), &tf); err != nil {
				t.Fatal(err)
			}
			for _, tax := range []struct{ name, file string }{{TaxonomyRuntime, "want"}, {TaxonomyProtocol, "protocol"}} {
				h.cfg.Taxonomy = tax.name
				c := h.classify(context.Background(), tf.facts())
				got := c.Label + " " + c.Rule
				if want := strings.TrimSpace(a.Files[tax.file]); got != want {
					t.Errorf("%s taxonomy: classify = %q (%s); want %q", tax.name, got, c.Rationale, want)
				}
				if len([]rune(c.Rationale)) > 240 {
					t.Errorf("rationale longer than 240 chars: %q", c.Rationale)
				}
			}
		})
	}
}

func TestExceptionType(t *testing.T) {
	tests := []struct{ name, stderr, want string }{
		{"Last", "ValueError: a\nTypeError: b\n", "TypeError"},
		{"DottedNotRecognised", "pydantic_core._pydantic_core.ValidationError: x\n", ""},
		{"Warning", "UserWarning: careful\n", "UserWarning"},
		{"None", "just text", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exceptionType(tt.stderr); got != tt.want {
				t.Errorf("exceptionType = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestJudge checks the §5.2 judge over the OpenAI-compatible wire format:
// a valid answer decides, and errors or unusable answers fall back.
func TestJudge(t *testing.T) {
	facts := taxonomyFacts{API: "numpy.unstack", Code: "np.unstack(a)", Stderr: "ZeroDivisionError: division by zero\n",
		Exception: &excRecord{Phase: "setup", Exc: "ZeroDivisionError", Msg: "division by zero"}}
	tests := []struct {
		name      string
		answer    string
		status    int
		wantLabel string
		wantRule  string
	}{
		{"Param", `Sure: {"class": "W_PARAM", "rationale": "bad keyword at the call site"}`, 0, pool.LabelWrongParam, "judge"},
		{"Shape", `{"class":"W_SHAPE_DTYPE","rationale":"rank check failed inside unstack"}`, 0, pool.LabelWrongShapeDtype, "judge"},
		{"APISubclassified", `{"class":"W_API","rationale":"called another function"}`, 0, pool.LabelWrongImport, "judge"},
		{"UnknownClass", `{"class":"W_OTHER","rationale":"?"}`, 0, pool.LabelWrongLogic, "judge-fallback"},
		{"NoJSON", `I think it is a parameter problem.`, 0, pool.LabelWrongLogic, "judge-fallback"},
		{"HTTPError", ``, 400, pool.LabelWrongLogic, "judge-fallback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prompt string
			srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
				prompt = r.Last()
				return []string{tt.answer}, tt.status
			})
			c, err := llm.New(llm.Config{Endpoint: srv.URL, Model: "judge", Retries: -1})
			if err != nil {
				t.Fatal(err)
			}
			h := &Harness{log: slog.New(slog.DiscardHandler), cfg: Config{Judge: &JudgeConfig{Client: c}, Taxonomy: TaxonomyProtocol}}
			got := h.classify(context.Background(), facts.facts())
			// The runtime taxonomy asks the judge too: the completion's own
			// code raised before any target call (weak evidence).
			h.cfg.Taxonomy = TaxonomyRuntime
			rt := h.classify(context.Background(), facts.facts())
			if wantRT := map[bool]string{true: "judge", false: "runtime:crash-before-target"}[tt.wantRule == "judge"]; rt.Rule != wantRT {
				t.Errorf("runtime taxonomy: classify = %s %s; want rule %s", rt.Label, rt.Rule, wantRT)
			}
			if got.Label != tt.wantLabel || got.Rule != tt.wantRule {
				t.Errorf("classify = %s %s (%s); want %s %s", got.Label, got.Rule, got.Rationale, tt.wantLabel, tt.wantRule)
			}
			for _, part := range []string{"Target API: numpy.unstack", "Exception type: ZeroDivisionError", "np.unstack(a)"} {
				if !strings.Contains(prompt, part) {
					t.Errorf("judge prompt lacks %q:\n%s", part, prompt)
				}
			}
		})
	}
}
