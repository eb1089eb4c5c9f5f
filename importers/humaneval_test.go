package importers_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/importers"
	"github.com/novelapi/novelapi/pool"
)

// importAPICoder imports one of the APICoder samples in testdata/apicoder:
// "pandas", "numpy" (the originals) or "monkey", "beatnum" (the renamed
// pools, with their original and keyword table). Tasks are keyed by id.
func importAPICoder(t testing.TB, pool, env string) (string, map[string]*importers.Task) {
	t.Helper()
	const dir = "testdata/apicoder/"
	var (
		path string
		cfg  = importers.HumanEvalConfig{Environment: env, Library: pool + "eval"}
	)
	switch pool {
	case "pandas", "numpy":
		path = dir + pool + "_eval.jsonl"
	case "monkey":
		path = dir + "monkey_eval.jsonl.gz"
		cfg.Original, cfg.Keywords = dir+"pandas_eval.jsonl", dir+"pandas_keywords.jsonl"
	case "beatnum":
		path = dir + "beatnum_eval.jsonl"
		cfg.Original, cfg.Keywords = dir+"numpy_eval.jsonl", dir+"numpy_keywords.jsonl"
	default:
		t.Fatalf("no APICoder sample %q", pool)
	}
	out := t.TempDir()
	if _, err := importers.ImportHumanEval(path, out, cfg); err != nil {
		t.Fatal(err)
	}
	tasks, err := importers.LoadPool(out)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]*importers.Task{}
	for _, tk := range tasks {
		if err := tk.Validate(false); err != nil {
			t.Errorf("task format: %v", err)
		}
		if tk.SpyNeeded() || tk.APIName != "" {
			t.Errorf("%s: spy required %v api %q; want the spy off", tk.TaskID, tk.SpyNeeded(), tk.APIName)
		}
		by[tk.TaskID] = tk
	}
	return out, by
}

// The reference runs as the pool's harness joins it: prompt and completion
// with nothing between (PandasEval/9's prompt ends in "    return "), the
// test after a newline, then check(entry_point), or check() for tasks
// without a function; the context is everything before the entry point's
// def (a helper function included), and context + masked region is the
// prompt + solution, character for character.
func TestImportHumanEval_APICoderJoin(t *testing.T) {
	_, tasks := importAPICoder(t, "pandas", "bookworm-sci")
	p9 := tasks["he_PandasEval_9"]
	if want := "    return df.dropna(subset=[col_name])"; !strings.HasSuffix(p9.MaskedRegion, "# How to drop rows of Pandas DataFrame whose value in a certain column is NaN\n"+want) {
		t.Errorf("PandasEval/9 masked region ends %q; want the prompt's `    return ` joined to the solution", tail(p9.MaskedRegion, 80))
	}
	if p9.ContextCode != "import pandas as pd\nimport numpy as np\n\n" || !strings.HasPrefix(p9.MaskedRegion, "def drop_rows_col_nan(df, col_name):") {
		t.Errorf("PandasEval/9 split at %q | %q", p9.ContextCode, head(p9.MaskedRegion, 40))
	}
	if !strings.HasSuffix(p9.TestHarness.ExecutionTest, "\ncheck(drop_rows_col_nan)") || p9.EntryPoint != "drop_rows_col_nan" {
		t.Errorf("PandasEval/9 test ends %q", tail(p9.TestHarness.ExecutionTest, 40))
	}
	p20 := tasks["he_PandasEval_20"]
	if !strings.HasSuffix(p20.TestHarness.ExecutionTest, "\ncheck()") || p20.EntryPoint != "" {
		t.Errorf("PandasEval/20 (entry point none) test ends %q, entry %q; want check()", tail(p20.TestHarness.ExecutionTest, 40), p20.EntryPoint)
	}
	if !strings.HasPrefix(p20.MaskedRegion, "new_df = df.groupby(") || !strings.Contains(p20.ContextCode, "df = pd.DataFrame(") {
		t.Errorf("PandasEval/20 split at the unfinished statement: context ends %q, masked %q", tail(p20.ContextCode, 60), head(p20.MaskedRegion, 60))
	}
	p34 := tasks["he_PandasEval_34"]
	if !strings.Contains(p34.ContextCode, "\ndef f(x):") || !strings.HasPrefix(p34.MaskedRegion, "def calculate_row_diff_groupwise(df):") {
		t.Errorf("PandasEval/34 context lacks the helper or the split is wrong: %q | %q", tail(p34.ContextCode, 60), head(p34.MaskedRegion, 50))
	}
	for id, tk := range tasks {
		if tk.ContextCode+tk.MaskedRegion != tk.ReferenceSolution || tk.ReferenceSolution != tk.OriginalPrefix {
			t.Errorf("%s: context + masked region differs from prompt + solution", id)
		}
		// The prompt's rest, which a completion continues; the reference
		// prediction is the pool's solution as written, after it.
		pred := importers.ReferencePredictions([]*pool.Task{tk.Task})[0].Samples[0]
		if tk.PromptRest == "" || !tk.ContinuesPrompt() || tk.ContextCode+tk.PromptRest+pred != tk.ReferenceSolution {
			t.Errorf("%s: prompt rest %q, reference prediction %q; want prompt = context + rest, solution = the prediction", id, head(tk.PromptRest, 40), head(pred, 40))
		}
		progs := importers.OriginalPrograms(tk)
		if len(progs) != 1 || progs[0][1] != tk.OriginalPrefix+"\n"+tk.TestHarness.ExecutionTest {
			t.Errorf("%s: original programs %q", id, progs)
		}
	}
	// PandasEval/5 lists three alternative solutions; the first is the reference.
	if p5 := tasks["he_PandasEval_5"]; !strings.HasSuffix(p5.MaskedRegion, "    return len(df.index)") {
		t.Errorf("PandasEval/5 reference ends %q; want the first alternative", tail(p5.MaskedRegion, 40))
	}
}

// A renamed pool runs what APICoder's harness runs: the original's prompt
// and test with the renamed solution translated back (pair after pair,
// plain replacement; a solution naming an original name becomes
// "error!"). The solver reads the renamed prompt; the original context runs
// as a hidden setup, never shown.
func TestImportHumanEval_RenamedPool(t *testing.T) {
	_, orig := importAPICoder(t, "pandas", "bookworm-sci")
	_, tasks := importAPICoder(t, "monkey", "bookworm-sci")
	m9, p9 := tasks["he_PandasEval_9"], orig["he_PandasEval_9"]
	if m9.MaskedRegion != p9.MaskedRegion || m9.HiddenSetup != p9.ContextCode || m9.ContextCode != "" {
		t.Errorf("MonkeyEval/9 runs %q after hidden setup %q, context %q; want PandasEval/9's", m9.MaskedRegion, m9.HiddenSetup, m9.ContextCode)
	}
	if !strings.Contains(m9.Description, "import monkey as mk") || strings.Contains(m9.Description, "pandas") || len(m9.Keywords) == 0 {
		t.Errorf("MonkeyEval/9 shows %q with %d keywords; want the renamed prompt and the table", head(m9.Description, 60), len(m9.Keywords))
	}
	if m32 := tasks["he_PandasEval_32"]; !strings.HasSuffix(m32.MaskedRegion, "error!") {
		t.Errorf("MonkeyEval/32 (its solution names `all`) runs %q; want the harness's error!", tail(m32.MaskedRegion, 40))
	}
	_, bn := importAPICoder(t, "beatnum", "bookworm-sci")
	if b1 := bn["he_NumpyEval_1"]; !strings.HasSuffix(b1.OriginalPrefix, "c = a * b[:, np.newaxis]") {
		t.Errorf("BeatNumEval/1 original program ends %q; want numpy names", tail(b1.OriginalPrefix, 40))
	}
	// What the harness needs to translate a model's completion: the
	// renamed prompt and its rest (which a completion may repeat), the
	// original rest (which runs in their place), and the reference in the
	// renamed names, which the reference predictions hold. MonkeyEval/9
	// renames its function too (drop_rows_col_nan is sip_rows_col_nan).
	for _, tk := range []*importers.Task{m9, tasks["he_PandasEval_20"], bn["he_NumpyEval_1"]} {
		rest := strings.TrimSuffix(tk.MaskedRegion, importers.KeywordTable(tk.Keywords).ConvertBack(strings.TrimPrefix(tk.RenamedReference, tk.RenamedRest)))
		if !strings.HasSuffix(tk.RenamedPrompt, tk.RenamedRest) || tk.RenamedRest == "" || tk.OriginalRest != rest ||
			tk.HiddenSetup+tk.OriginalRest+strings.TrimPrefix(tk.MaskedRegion, tk.OriginalRest) != tk.ReferenceSolution {
			t.Errorf("%s: renamed rest %q of prompt ending %q, original rest %q (masked region gives %q)",
				tk.TaskID, tk.RenamedRest, tail(tk.RenamedPrompt, 40), tk.OriginalRest, rest)
		}
	}
	if want := "def sip_rows_col_nan(kf, col_name):"; !strings.HasPrefix(m9.RenamedRest, want) || !strings.HasSuffix(m9.RenamedReference, "    return kf.sipna(subset=[col_name])") {
		t.Errorf("MonkeyEval/9 renamed rest %q, reference ending %q; want the renamed def and solution", head(m9.RenamedRest, 40), tail(m9.RenamedReference, 40))
	}
	preds := importers.ReferencePredictions([]*pool.Task{m9.Task, p9.Task})
	if preds[0].Samples[0] != "kf.sipna(subset=[col_name])" || preds[1].Samples[0] != "df.dropna(subset=[col_name])" {
		t.Errorf("reference predictions %q, %q; want the pools' own solutions, MonkeyEval's in the renamed names, PandasEval's in pandas'", preds[0].Samples[0], preds[1].Samples[0])
	}
	if m9.PromptRest != "" || !m9.ContinuesPrompt() {
		t.Errorf("MonkeyEval/9 prompt rest %q; want none (the renamed rests stand for it)", m9.PromptRest)
	}
}

// ConvertBack is APICoder's convert_back on the pools' own solutions: a
// solution in the renamed names is translated pair after pair (MonkeyEval/5,
// BeatNumEval/1); one that names an original name that is not also a
// renamed one, even inside a string (MonkeyEval/66's keep="last"), is
// "error!". Names are Python's \b-delimited runs: a word that continues
// with a non-ASCII letter holds no name, as in Python's re on str.
func TestKeywordTable_ConvertBack(t *testing.T) {
	pandas, err := importers.ReadKeywordTable("testdata/apicoder/pandas_keywords.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	numpy, err := importers.ReadKeywordTable("testdata/apicoder/numpy_keywords.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		table importers.KeywordTable
		in    string
		want  string
	}{
		{"MonkeyEval5", pandas, "    return length(kf.index)", "    return len(df.index)"},
		{"MonkeyEval9", pandas, "kf.sipna(subset=[col_name])", "df.dropna(subset=[col_name])"},
		{"BeatNumEval1", numpy, " a * b[:, bn.newaxis]", " a * b[:, np.newaxis]"},
		{"MonkeyEval66", pandas, `    return kf.remove_duplicates(subset=col1, keep="last")`, "error!"},
		{"BeatNumEval97", numpy, " bn.remove_operation(bn.arr_range(np.alen(A)), C)", "error!"},
		{"NonASCIIWord", pandas, "kf.sipna() # ignoréall", "df.dropna() # ignoréall"},
		{"DigitStart", pandas, "kf.sipna() # 2all", "df.dropna() # 2all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.table.ConvertBack(tt.in); got != tt.want {
				t.Errorf("ConvertBack(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestImportHumanEval_RenamedNeedsBoth(t *testing.T) {
	_, err := importers.ImportHumanEval("testdata/apicoder/beatnum_eval.jsonl", t.TempDir(),
		importers.HumanEvalConfig{Original: "testdata/apicoder/numpy_eval.jsonl"})
	if err == nil || !strings.Contains(err.Error(), "keyword table") {
		t.Errorf("err = %v; want one naming the missing keyword table", err)
	}
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
