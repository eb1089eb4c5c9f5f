package pyversion_test

import (
	"errors"
	"slices"
	"strings"
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

func TestSpecifier_Contains(t *testing.T) {
	tests := []struct {
		spec string
		in   []string
		out  []string
	}{
		// scipy 1.17.1's METADATA (sid): Requires-Dist: numpy<2.7,>=1.26.4
		{"<2.7,>=1.26.4", []string{"1.26.4", "2.2.4", "2.6.9"}, []string{"1.26.3", "2.7", "2.7.0rc1"}},
		{"==2.2", []string{"2.2", "2.2.0"}, []string{"2.2.4", "2.2rc1"}},
		{"==2.2.*", []string{"2.2", "2.2.4", "2.2.0rc1", "2.2.4.post1"}, []string{"2.3.0", "2.1.9"}},
		{"!=2.2.*", []string{"2.3.0"}, []string{"2.2.4"}},
		{"~=2.1", []string{"2.1", "2.9"}, []string{"3.0", "2.0"}},
		{"~=2.1.3", []string{"2.1.3", "2.1.9"}, []string{"2.2.0", "2.1.2"}},
		{"<2.0", []string{"1.9", "1.9.post1"}, []string{"2.0rc1", "2.0.dev1", "2.0"}},
		{"<2.0rc2", []string{"2.0rc1"}, []string{"2.0rc2", "2.0"}},
		{">2.0", []string{"2.0.1", "2.1"}, []string{"2.0", "2.0.post1"}},
		{">2.0.post1", []string{"2.0.post2"}, []string{"2.0.post1"}},
		{"===2.2.4", []string{"2.2.4"}, []string{"2.2.4.0"}},
		{"", []string{"0.1", "2024.1"}, nil},
		{">=1.26, !=2.0.0", []string{"1.26", "2.0.1"}, []string{"2.0", "1.25"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := pyversion.ParseSpecifierSet(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []bool{true, false} {
				vs := tt.in
				if !want {
					vs = tt.out
				}
				for _, v := range vs {
					pv, ok := pyversion.Parse(v)
					if !ok {
						t.Fatalf("Parse(%q) failed", v)
					}
					if got := s.Contains(pv); got != want {
						t.Errorf("%q contains %s: %v; want %v", tt.spec, v, got, want)
					}
				}
			}
		})
	}
}

func TestParseSpecifierSet_Errors(t *testing.T) {
	tests := []struct{ spec, clause string }{
		{"2.x", "2.x"},
		{">=x.y", ">=x.y"},
		{">=2.*", ">=2.*"},
		{"~=2", "~=2"},
		{">=1,,<2", ""},
		{"^1.2", "^1.2"},
	}
	for _, tt := range tests {
		_, err := pyversion.ParseSpecifierSet(tt.spec)
		se, ok := errors.AsType[*pyversion.SpecifierError](err)
		if !ok {
			t.Errorf("ParseSpecifierSet(%q) = %v; want a *SpecifierError", tt.spec, err)
			continue
		}
		if strings.TrimSpace(se.Clause) != tt.clause {
			t.Errorf("ParseSpecifierSet(%q) blames clause %q; want %q", tt.spec, se.Clause, tt.clause)
		}
	}
}

func TestSpecifier_PinAnchor(t *testing.T) {
	tests := []struct{ spec, pin, anchor string }{
		{"==2.2.4", "2.2.4", "2.2.4"},
		{"==2.2.*", "", "2.2"},
		{">=1.23.5,<2.5", "", "1.23.5"},
		{"<2.5", "", "2.5"},
		{"!=2.0", "", ""},
		{"~=2.1, >=2.3", "", "2.3"},
	}
	for _, tt := range tests {
		s, err := pyversion.ParseSpecifierSet(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		pin, ok := s.Pin()
		if got := map[bool]string{true: pin.String()}[ok]; got != tt.pin {
			t.Errorf("%q.Pin() = %q; want %q", tt.spec, got, tt.pin)
		}
		a, ok := s.Anchor()
		if got := map[bool]string{true: a.String()}[ok]; got != tt.anchor {
			t.Errorf("%q.Anchor() = %q; want %q", tt.spec, got, tt.anchor)
		}
	}
}

func TestNearest(t *testing.T) {
	// numpy as Debian indexes it: bookworm, trixie, sid.
	among := []string{"1.24.2", "2.2.4", "2.4.6"}
	tests := []struct{ target, want string }{
		{"2.2.4", "2.2.4"},
		{"2.3.1", "2.2.4"}, // 2.2 and 2.4 are as near: the lower one
		{"2.4.0", "2.4.6"},
		{"1.26.4", "1.24.2"},
		{"3.0", "2.4.6"},
		{"0.9", "1.24.2"},
	}
	var vs []pyversion.Version
	for _, a := range among {
		v, _ := pyversion.Parse(a)
		vs = append(vs, v)
	}
	for _, tt := range tests {
		target, _ := pyversion.Parse(tt.target)
		got, ok := pyversion.Nearest(target, vs)
		if !ok || got.String() != tt.want {
			t.Errorf("Nearest(%s) = %s; want %s", tt.target, got, tt.want)
		}
	}
	if _, ok := pyversion.Nearest(vs[0], nil); ok {
		t.Error("Nearest among none reported ok")
	}
}
