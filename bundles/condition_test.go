package bundles_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

func TestParseCondition(t *testing.T) {
	tests := []struct {
		in   string
		want bundles.Condition
	}{
		{"none", bundles.CondNone}, {"NONE", bundles.CondNone},
		{"S_name", bundles.CondSName}, {"S_NAME", bundles.CondSName}, {"s_name", bundles.CondSName},
		{"S", bundles.CondS}, {"s", bundles.CondS},
		{"E", bundles.CondE}, {"M", bundles.CondM}, {"c", bundles.CondC},
		{"S+M", bundles.CondSM}, {"S_M", bundles.CondSM}, {"s_m", bundles.CondSM},
		{"S+E", bundles.CondSE}, {"S_E", bundles.CondSE},
		{"S+C", bundles.CondSC}, {"S_C", bundles.CondSC},
		{"S+M+C", bundles.CondSMC}, {"S_M_C", bundles.CondSMC},
		{"S+E+C", bundles.CondSEC}, {"s_e_c", bundles.CondSEC},
		{"Full", bundles.CondFull}, {"FULL", bundles.CondFull}, {"full", bundles.CondFull},
		{" S+E ", bundles.CondSE},
	}
	for _, tt := range tests {
		got, err := bundles.ParseCondition(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseCondition(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "S+M+E", "all", "S_param", "E+S"} {
		_, err := bundles.ParseCondition(bad)
		if !errors.Is(err, bundles.ErrUnknownCondition) {
			t.Errorf("ParseCondition(%q) err = %v, want ErrUnknownCondition", bad, err)
		} else if !strings.Contains(err.Error(), "none, S_name, S, E, M, C, S+M, S+E, S+C, S+M+C, S+E+C, Full") {
			t.Errorf("error does not list valid values: %v", err)
		}
	}
}

func TestCondition_Components(t *testing.T) {
	all := bundles.AllConditions()
	if len(all) != 12 {
		t.Fatalf("AllConditions has %d entries", len(all))
	}
	// Component strings per §2.1's table, in order.
	want := []string{"none", "S_name", "S", "E", "M", "C", "S+M", "S+E", "S+C", "S+M+C", "S+E+C", "S+E+M+C"}
	for i, c := range all {
		if got := c.Components().String(); got != want[i] {
			t.Errorf("%s.Components() = %s, want %s", c, got, want[i])
		}
		if !c.Valid() {
			t.Errorf("%s not valid", c)
		}
		back, err := bundles.ParseCondition(c.EnumName())
		if err != nil || back != c {
			t.Errorf("enum name %q parses to %q, %v", c.EnumName(), back, err)
		}
		// Every condition value also parses as a component set.
		comps, err := bundles.ParseComponents(string(c))
		if err != nil || comps != c.Components() {
			t.Errorf("ParseComponents(%q) = %v, %v; want %v", c, comps, err, c.Components())
		}
	}
	if bundles.CondFull.Components() != bundles.CompAll || !bundles.CondS.Components().Has(bundles.CompSParam) {
		t.Error("Full/S component sets wrong")
	}
	if bundles.Condition("S+X").Valid() {
		t.Error("S+X is valid")
	}
	if len(bundles.CrossBackboneConditions()) != 9 {
		t.Error("cross-backbone conditions are not nine")
	}
}

func TestParseComponents(t *testing.T) {
	tests := []struct {
		in   string
		want bundles.Components
	}{
		{"S_param", bundles.CompSParam},
		{"E,M", bundles.CompE | bundles.CompM},
		{"s_name+C", bundles.CompSName | bundles.CompC},
		{"all", bundles.CompAll},
		{"", 0},
	}
	for _, tt := range tests {
		got, err := bundles.ParseComponents(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseComponents(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := bundles.ParseComponents("S+X"); !errors.Is(err, bundles.ErrUnknownComponent) {
		t.Errorf("ParseComponents(S+X) err = %v", err)
	}
}

func TestCondition_UnmarshalText(t *testing.T) {
	var c bundles.Condition
	if err := c.Set("s_e_c"); err != nil || c != bundles.CondSEC {
		t.Errorf("Set(s_e_c) = %q, %v", c, err)
	}
	if err := c.Set("bogus"); err == nil {
		t.Error("Set(bogus) succeeded")
	}
}

func TestSplitQualname(t *testing.T) {
	tests := []struct{ name, in, wantMod, wantAttr string }{
		{"TopLevel", "numpy.unstack", "numpy", "unstack"},
		{"Nested", "numpy.linalg.matrix_norm", "numpy.linalg", "matrix_norm"},
		{"Method", "pandas.Series.case_when", "pandas.Series", "case_when"},
		{"NoDot", "numpy", "", "numpy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mod, attr := bundles.SplitQualname(tt.in)
			if mod != tt.wantMod || attr != tt.wantAttr {
				t.Errorf("SplitQualname(%q) = %q, %q; want %q, %q", tt.in, mod, attr, tt.wantMod, tt.wantAttr)
			}
			if got := bundles.LeafName(tt.in); got != tt.wantAttr {
				t.Errorf("LeafName(%q) = %q", tt.in, got)
			}
		})
	}
	if got := bundles.TopLevel("scipy.stats.quantile"); got != "scipy" {
		t.Errorf("TopLevel = %q", got)
	}
}
