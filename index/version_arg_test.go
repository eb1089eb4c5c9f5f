package index_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/index"
)

// A version prefix naming versions of two libraries ("2.2": numpy 2.2.4
// and pandas 2.2.3 in the test bundles) is refused as ambiguous, naming
// both, rather than reported as unknown; with the library it resolves.
func TestIndex_SearchAmbiguousVersion(t *testing.T) {
	_, ix := buildIndex(t)
	_, err := ix.Search(t.Context(), index.Query{Text: "array", Version: "2.2"})
	ae, ok := errors.AsType[*index.ArgError](err)
	if !ok || ae.Arg != "version" {
		t.Fatalf("err = %v; want *ArgError for version", err)
	}
	msg := err.Error()
	for _, want := range []string{"ambiguous", "2.2.4", "2.2.3", "library"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "unknown") {
		t.Errorf("error %q calls an ambiguous version unknown", msg)
	}
	if len(ae.Matches) != 2 || len(ae.Valid) < 3 {
		t.Errorf("Matches = %v, Valid = %v; want the 2 matches among all valid versions", ae.Matches, ae.Valid)
	}

	_, err = ix.Search(t.Context(), index.Query{Text: "array", Version: "3.1"})
	if err == nil || !strings.Contains(err.Error(), "unknown version") {
		t.Errorf("version 3.1: err = %v; want unknown version", err)
	}
	hits, err := ix.Search(t.Context(), index.Query{Text: "array", Library: "pandas", Version: "2.2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Library != "pandas" || h.Version != "2.2.3" {
			t.Errorf("pandas 2.2: got %s %s %s", h.APIName, h.Library, h.Version)
		}
	}
}
