package pyversion_test

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/internal/pyversion"
)

func TestSort(t *testing.T) {
	in := []string{"2.10", "2.9", "2.0.0", "2.0.0rc1", "2.0.0.dev1", "2.0.0a1", "0.24.post1", "0.24", "latest", "2.9"}
	want := []string{"latest", "0.24", "0.24.post1", "2.0.0.dev1", "2.0.0a1", "2.0.0rc1", "2.0.0", "2.9", "2.10"}
	if got := pyversion.Sort(in); !slices.Equal(got, want) {
		t.Errorf("Sort = %v; want %v", got, want)
	}
}

func TestCompareStrings(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.20", "1.20.0", 0},
		{"2.4.6", "2.2.4", 1},
		{"v2.1", "2.1", 0},
		{"3.0.0rc2", "3.0.0", -1},
		{"", "1.0", -1},
	}
	for _, tt := range tests {
		if got := pyversion.CompareStrings(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareStrings(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestParseSpecifier(t *testing.T) {
	preds, ok := pyversion.ParseSpecifier("~=2.1, !=2.3")
	if !ok {
		t.Fatal("~=2.1, !=2.3 did not parse")
	}
	for v, want := range map[string]bool{"2.1": true, "2.3": false, "2.9": true, "3.0": false, "2.0": false} {
		pv, _ := pyversion.Parse(v)
		got := true
		for _, p := range preds {
			got = got && p(pv)
		}
		if got != want {
			t.Errorf("%s matches ~=2.1,!=2.3: %v; want %v", v, got, want)
		}
	}
	if _, ok := pyversion.ParseSpecifier(">=x.y"); ok {
		t.Error(">=x.y parsed")
	}
}
