package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// fixture reads the real bundles of bundles/testdata/fixture (numpy,
// scipy and pandas APIs as extracted from Debian's packages).
func fixture(t *testing.T) []bundles.Bundle {
	t.Helper()
	var out []bundles.Bundle
	for b, err := range jsonl.Scan[bundles.Bundle]("../../bundles/testdata/fixture/bundles.jsonl") {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) < 10 {
		t.Fatalf("fixture has %d bundles", len(out))
	}
	return out
}

func TestSplitPage_Sizes(t *testing.T) {
	for _, b := range fixture(t) {
		p := pageOf(&b, true)
		chunks := splitPage(p.markdown)
		if len(chunks) == 0 {
			t.Fatalf("%s: no chunks", b.APIName)
		}
		var total int
		for i, c := range chunks {
			n := runes(c.content)
			total += n
			// Greedy merging stays within the preferred size; only one
			// piece alone (a code block up to maxChunk) may pass it.
			if n > maxChunk {
				t.Errorf("%s chunk %d: %d characters > %d", b.APIName, i, n, maxChunk)
			}
			if n > preferredChunk && !strings.HasPrefix(c.content, "```") {
				t.Errorf("%s chunk %d: %d characters of text > %d:\n%s", b.APIName, i, n, preferredChunk, c.content)
			}
			if len(c.path) == 0 || c.path[0] != b.APIName {
				t.Errorf("%s chunk %d: path %q does not start at the page title", b.APIName, i, c.path)
			}
		}
		// Nothing of the page is lost: every word of the implementation
		// is in some chunk.
		joined := ""
		for _, c := range chunks {
			joined += c.content + "\n"
		}
		for _, w := range strings.Fields(b.Implementation) {
			if !strings.Contains(joined, w) {
				t.Errorf("%s: word %q of the implementation is in no chunk", b.APIName, w)
				break
			}
		}
	}
}

func TestSplitPage_Sections(t *testing.T) {
	var b bundles.Bundle
	for _, x := range fixture(t) {
		if x.APIName == "scipy.integrate.tanhsinh" {
			b = x
		}
	}
	if b.APIName == "" {
		t.Fatal("scipy.integrate.tanhsinh not in the fixture")
	}
	chunks := splitPage(pageOf(&b, true).markdown)
	// The source (11,757 characters) is longer than maxChunk: cut at lines
	// into fenced chunks under the Source heading.
	var src int
	for _, c := range chunks {
		if len(c.path) == 2 && c.path[1] == "Source" && strings.HasPrefix(c.content, "```python\n") {
			src++
			if !strings.HasSuffix(c.content, "\n```") {
				t.Errorf("source chunk not closed: ...%q", c.content[len(c.content)-20:])
			}
		}
	}
	if src < 3 {
		t.Errorf("source cut into %d fenced chunks, want at least 3", src)
	}
	// The H1 section (name, signature, description) is one chunk that
	// starts with the heading.
	if !strings.HasPrefix(chunks[0].content, "# scipy.integrate.tanhsinh\n") || chunks[0].level != 1 {
		t.Errorf("first chunk (level %d): %q", chunks[0].level, chunks[0].content[:min(80, len(chunks[0].content))])
	}
}

func TestFTSQuery(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"rfft", `"rfft"`},
		{"  inverse  stack ", `"  inverse  stack " OR ("inverse" OR "stack")`},
		{`df["a"].map(f)`, `"df[""a""].map(f)"`},
		{"x = 1", `"x = 1" OR ("x" OR "=" OR "1")`},
	} {
		if got := ftsQuery(c.in); got != c.want {
			t.Errorf("ftsQuery(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestStore_Search(t *testing.T) {
	bs := fixture(t)
	pages := make([]page, len(bs))
	for i := range bs {
		pages[i] = pageOf(&bs[i], true)
	}
	ctx := context.Background()
	st, err := openStore(ctx, pages)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, c := range []struct {
		q, lib, want string
		within       int // the rank want must reach
	}{
		// Stemming (porter): "derivatives" finds "derivative".
		{"numerical derivatives by finite differences", "", "scipy.differentiate.derivative", 1},
		// A term with only separators ("=") is an empty phrase. The
		// description of tanhsinh (x, axis, a) outranks unstack's page.
		{"x = np.unstack(a, axis=0)", "", "numpy.unstack", 2},
		{"cumulative integral Simpson's rule", "scipy", "scipy.integrate.cumulative_simpson", 1},
		// Quotes in code are escaped, not FTS syntax.
		{`s.case_when(caselist=[(s > 0, "pos")])`, "pandas", "pandas.Series.case_when", 1},
	} {
		apis, err := st.search(ctx, c.q, c.lib, 5)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if r := slices.Index(apis, c.want) + 1; r == 0 || r > c.within {
			t.Errorf("%q (library %q): %v, want %s within the first %d", c.q, c.lib, apis, c.want, c.within)
		}
		for _, a := range apis {
			if c.lib != "" && !strings.HasPrefix(a, c.lib+".") {
				t.Errorf("%q scoped to %s returned %s", c.q, c.lib, a)
			}
		}
	}
	// A query of stop-like separators only matches nothing and is no error.
	if apis, err := st.search(ctx, "= ( )", "", 5); err != nil || len(apis) != 0 {
		t.Errorf(`"= ( )": %v, %v; want no hits, no error`, apis, err)
	}
}
