package bundles_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// publishedKeys lists the §1.2 fields; the round trip must keep exactly these.
var publishedKeys = []string{"api_name", "library", "domain", "s_name", "s_param", "return_type",
	"examples", "mechanism", "implementation", "is_modified", "old_signature", "old_parameters",
	"requires_file_io"}

func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(data), []byte("\n"))
}

func TestReadBundles_PublishedRoundTrip(t *testing.T) {
	for _, name := range []string{"published.jsonl", "novelapi.jsonl"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join("testdata", "formats", name)
			bs, stats, err := bundles.ReadBundles(src, jsonl.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lines := readLines(t, src)
			if stats.Records != len(lines) || len(bs) != len(lines) {
				t.Fatalf("read %d records (stats %+v), file has %d lines", len(bs), stats, len(lines))
			}
			out := filepath.Join(t.TempDir(), "out.jsonl")
			if err := bundles.WriteBundles(out, bs); err != nil {
				t.Fatal(err)
			}
			again, _, err := bundles.ReadBundles(out, jsonl.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(bs, again) {
				t.Errorf("decode → encode → decode changed the bundles")
			}
			// Every published field is written back with the same JSON value
			// (null stays null, "" stays "", [] stays []); unknown fields are
			// dropped; provenance survives.
			outLines := readLines(t, out)
			for i := range lines {
				var orig, got map[string]any
				if err := json.Unmarshal(lines[i], &orig); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(outLines[i], &got); err != nil {
					t.Fatal(err)
				}
				for _, k := range publishedKeys {
					if _, ok := orig[k]; !ok {
						t.Fatalf("fixture line %d lacks %q", i+1, k)
					}
					if !reflect.DeepEqual(orig[k], got[k]) {
						t.Errorf("line %d field %s: wrote %#v, want %#v", i+1, k, got[k], orig[k])
					}
				}
				if !reflect.DeepEqual(orig["provenance"], got["provenance"]) {
					t.Errorf("line %d provenance: wrote %#v, want %#v", i+1, got["provenance"], orig["provenance"])
				}
				for k := range got {
					if k != "provenance" && !contains(publishedKeys, k) {
						t.Errorf("line %d: wrote unexpected field %q", i+1, k)
					}
				}
			}
		})
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestReadBundles_NullsAndEmpties(t *testing.T) {
	bs, _, err := bundles.ReadBundles(filepath.Join("testdata", "formats", "published.jsonl"), jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sort := bs[2]
	if sort.APIName != "numpy.sort" {
		t.Fatalf("third record is %s", sort.APIName)
	}
	if sort.ReturnType != nil {
		t.Errorf("return_type = %q, want null", *sort.ReturnType)
	}
	if p := sort.SParam[0]; p.Type != nil || p.Default != nil {
		t.Errorf("a: type %v default %v, want null, null", p.Type, p.Default)
	}
	if p := sort.SParam[2]; p.Type == nil || *p.Type != "" {
		t.Errorf("kind: type %v, want \"\"", p.Type)
	}
	if p := sort.SParam[3]; p.Default == nil || *p.Default != "" {
		t.Errorf("order: default %v, want \"\"", p.Default)
	}
	if sort.OldSignature == nil || len(sort.OldParameters) != 4 || !sort.IsModified {
		t.Errorf("modified fields not decoded: %v %v %v", sort.OldSignature, sort.OldParameters, sort.IsModified)
	}
	if bs[0].OldParameters != nil {
		t.Errorf("unstack old_parameters = %v, want nil", bs[0].OldParameters)
	}
	if sort.Mechanism.SourceSummary == nil || *sort.Mechanism.SourceSummary != "source_unavailable" {
		t.Errorf("source_summary = %v", sort.Mechanism.SourceSummary)
	}
}

func TestWriteBundles_NilListsAreEmpty(t *testing.T) {
	b := bundles.Bundle{APIName: "x.y", SName: "x.y"}
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{`"s_param":[]`, `"examples":[]`, `"references":[]`, `"old_parameters":null`,
		`"return_type":null`, `"source_summary":null`} {
		if !strings.Contains(s, want) {
			t.Errorf("encoding lacks %s: %s", want, s)
		}
	}
	if strings.Contains(s, "provenance") || strings.Contains(s, "generator") {
		t.Errorf("empty extensions written: %s", s)
	}
}

func TestReadJSONL_BadLines(t *testing.T) {
	path := filepath.Join("testdata", "formats", "bad.jsonl")
	t.Run("Strict", func(t *testing.T) {
		bs, _, err := bundles.ReadBundles(path, jsonl.ReadOptions{})
		pe, ok := errors.AsType[*jsonl.ParseError](err)
		if !ok {
			t.Fatalf("err = %v, want *ParseError", err)
		}
		if pe.Path != path || pe.Line != 3 {
			t.Errorf("ParseError at %s:%d, want %s:3", pe.Path, pe.Line, path)
		}
		if !strings.HasPrefix(err.Error(), path+":3: ") {
			t.Errorf("message %q does not start with file:line", err)
		}
		if len(bs) != 1 {
			t.Errorf("got %d records before the error, want 1", len(bs))
		}
	})
	t.Run("SkipBad", func(t *testing.T) {
		bs, stats, err := bundles.ReadBundles(path, jsonl.ReadOptions{SkipBad: true})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, b := range bs {
			names = append(names, b.APIName)
		}
		if want := []string{"a.one", "a.six"}; !reflect.DeepEqual(names, want) {
			t.Errorf("records %v, want %v", names, want)
		}
		if stats.Records != 2 || stats.Skipped != 3 || stats.Blank != 2 {
			t.Errorf("stats = %+v, want 2 records, 3 skipped, 2 blank", stats)
		}
		var lines []int
		for _, pe := range stats.Bad {
			lines = append(lines, pe.Line)
		}
		if want := []int{3, 4, 5}; !reflect.DeepEqual(lines, want) {
			t.Errorf("bad lines %v, want %v", lines, want)
		}
		if !strings.Contains(stats.Bad[1].Error(), "not a JSON object") {
			t.Errorf("line 4 error = %v", stats.Bad[1])
		}
	})
}

func TestReadJSONL_MissingFile(t *testing.T) {
	_, _, err := bundles.ReadBundles(filepath.Join(t.TempDir(), "nope.jsonl"), jsonl.ReadOptions{SkipBad: true})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want ErrNotExist", err)
	}
}

func TestReadJSONL_HugeLines(t *testing.T) {
	impl := strings.Repeat("x = 1  # padding\n", 12000) // ~200 KB, beyond bufio.Scanner's 64 KiB
	in := []bundles.Bundle{{APIName: "a.big", Implementation: impl}, {APIName: "a.small"}}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := bundles.WriteBundles(path, in); err != nil {
		t.Fatal(err)
	}
	// No trailing newline on the last line, CRLF on the first.
	data, _ := os.ReadFile(path)
	data = bytes.Replace(data, []byte("}\n"), []byte("}\r\n"), 1)
	data = bytes.TrimSuffix(data, []byte("\n"))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, err := bundles.ReadBundles(path, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Implementation != impl || got[1].APIName != "a.small" {
		t.Errorf("huge line not read back intact (%d records)", len(got))
	}
}

func TestScanJSONL_StopsEarly(t *testing.T) {
	n := 0
	for b, err := range jsonl.Scan[bundles.Bundle](filepath.Join("testdata", "formats", "published.jsonl")) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if b.APIName == "scipy.stats.quantile" {
			break
		}
	}
	if n != 2 {
		t.Errorf("iterated %d records, want 2", n)
	}
}

func TestReadCandidates_RoundTrip(t *testing.T) {
	src := filepath.Join("testdata", "formats", "candidates.jsonl")
	cs, _, err := bundles.ReadCandidates(src, jsonl.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("read %d candidates", len(cs))
	}
	c := cs[0]
	if c.Extra.ClassRole != bundles.RolePlainClass || c.Extra.OldSignature == nil || len(c.Extra.OldParameters) != 1 {
		t.Errorf("extra not decoded: %+v", c.Extra)
	}
	if _, ok := c.Extra.Other["mmr_score"]; !ok {
		t.Errorf("unknown extra key not kept: %v", c.Extra.Other)
	}
	if cs[1].Docstring != nil || cs[1].OldVersion != nil || !cs[1].Extra.NoPreBoundaryRelease {
		t.Errorf("second candidate: %+v", cs[1])
	}
	out := filepath.Join(t.TempDir(), "c.jsonl")
	if err := bundles.WriteCandidates(out, cs); err != nil {
		t.Fatal(err)
	}
	lines, outLines := readLines(t, src), readLines(t, out)
	for i := range lines {
		var orig, got map[string]any
		json.Unmarshal(lines[i], &orig)
		json.Unmarshal(outLines[i], &got)
		if i == 0 {
			// relocated:false is empty and omitted on write.
			delete(orig["extra"].(map[string]any), "relocated")
		}
		if !reflect.DeepEqual(orig, got) {
			t.Errorf("line %d changed:\n got %v\nwant %v", i+1, got, orig)
		}
	}
}

func TestFind(t *testing.T) {
	bs := []bundles.Bundle{
		{APIName: "scipy.stats.poisson_binom", Provenance: &bundles.Provenance{Aliases: []string{"scipy.stats.distributions.poisson_binom"}}},
		{APIName: "numpy.unstack", Examples: []bundles.Example{ // the alias np is learned from the examples
			{Code: "import numpy as np\nnp.unstack(np.eye(2))\n"}, {Code: "import numpy as np\nnp.unstack(np.ones((2, 3)), axis=1)\n"}}},
		{APIName: "scipy.stats.distributions.triang_gen", Provenance: &bundles.Provenance{Instances: []string{"scipy.stats.triang", "scipy.stats.distributions.triang"}}},
	}
	if b, err := bundles.Find(bs, "numpy.unstack"); err != nil || b != &bs[1] {
		t.Errorf("Find(numpy.unstack) = %v, %v", b, err)
	}
	if b, err := bundles.Find(bs, "np.unstack"); err != nil || b != &bs[1] {
		t.Errorf("Find(np.unstack) = %v, %v", b, err)
	}
	if b, err := bundles.Find(bs, "scipy.stats.triang"); err != nil || b != &bs[2] {
		t.Errorf("Find(instance scipy.stats.triang) = %v, %v", b, err)
	}
	if b, err := bundles.Find(bs, "pd.unstack"); err == nil {
		t.Errorf("Find(pd.unstack) = %v; want no alias pd learned from these bundles", b.APIName)
	}
	if b, err := bundles.Find(bs, "scipy.stats.distributions.poisson_binom"); err != nil || b != &bs[0] {
		t.Errorf("Find(alias) = %v, %v", b, err)
	}
	if _, err := bundles.Find(bs, "numpy.nope"); !errors.Is(err, bundles.ErrUnknownAPI) {
		t.Errorf("Find(unknown) err = %v", err)
	}
}

// TestReadBundles_OtherFiles: a file of another kind handed over as
// bundles (a task pool's tasks.jsonl and expected_calls.jsonl, discover's
// candidates) is refused at its first line, naming the file, the line and
// the kind of file it looks like.
func TestReadBundles_OtherFiles(t *testing.T) {
	tests := []struct{ name, path, want string }{
		{"Tasks", "../evalharness/testdata/tasks/tasks.jsonl", "not a bundle: it has task_id and test_harness, as a line of a task pool's tasks.jsonl has"},
		{"ExpectedCalls", "../evalharness/testdata/tasks/expected_calls.jsonl", "not a bundle: it has task_id, as the lines of a task pool's files"},
		{"Candidates", filepath.Join("testdata", "formats", "candidates.jsonl"), "as a line of a candidates file (novelapi discover's output) has"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bs, _, err := bundles.ReadBundles(tt.path, jsonl.ReadOptions{})
			pe, ok := errors.AsType[*jsonl.ParseError](err)
			if !ok || pe.Path != tt.path || pe.Line != 1 || !strings.HasPrefix(err.Error(), tt.path+":1: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadBundles(%s) = %d bundles, %v; want a ParseError at line 1 with %q", tt.path, len(bs), err, tt.want)
			}
			_, st, err := bundles.ReadBundles(tt.path, jsonl.ReadOptions{SkipBad: true})
			if err != nil || st.Records != 0 || st.Skipped == 0 {
				t.Errorf("with SkipBad: %+v, %v; want every line skipped", st, err)
			}
		})
	}
}
