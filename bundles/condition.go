package bundles

import (
	"fmt"
	"strings"
)

// Components is a set of knowledge components (docs/protocol.md
// §2.1): S_name, S_param, E, M and C, with S = S_name+S_param.
type Components uint8

// The knowledge components and their common unions.
const (
	CompSName  Components = 1 << iota // S_name: the fully qualified name
	CompSParam                        // S_param: the parameter list
	CompE                             // E: usage examples
	CompM                             // M: mechanism prose
	CompC                             // C: implementation source

	CompS   = CompSName | CompSParam                         // S: name and parameters
	CompAll = CompSName | CompSParam | CompE | CompM | CompC // Full
)

// Has reports whether every component of x is in c.
func (c Components) Has(x Components) bool { return c&x == x }

// String renders c as the components joined by "+", with S for
// S_name+S_param and "none" for the empty set: "S+E", "S_name", "M+C".
func (c Components) String() string {
	var parts []string
	switch {
	case c.Has(CompS):
		parts = append(parts, "S")
	case c.Has(CompSName):
		parts = append(parts, "S_name")
	case c.Has(CompSParam):
		parts = append(parts, "S_param")
	}
	for _, x := range []struct {
		c    Components
		name string
	}{{CompE, "E"}, {CompM, "M"}, {CompC, "C"}} {
		if c.Has(x.c) {
			parts = append(parts, x.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// ParseComponents parses a set of components separated by "+" or ",", each
// one of S, S_name, S_param, E, M, C (case-insensitive), or the whole
// string "Full"/"all" or "none"/"" for the full and empty sets. Any
// condition value ("S+M+C") therefore parses to its components. The error
// wraps [ErrUnknownComponent].
func ParseComponents(s string) (Components, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "none":
		return 0, nil
	case "full", "all":
		return CompAll, nil
	}
	var c Components
	for part := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '+' || r == ',' }) {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "s":
			c |= CompS
		case "s_name":
			c |= CompSName
		case "s_param":
			c |= CompSParam
		case "e":
			c |= CompE
		case "m":
			c |= CompM
		case "c":
			c |= CompC
		default:
			return 0, fmt.Errorf("%w %q in %q (valid: S, S_name, S_param, E, M, C, Full, none)", ErrUnknownComponent, part, s)
		}
	}
	return c, nil
}

// A Condition is one of the 12 knowledge conditions of
// docs/protocol.md §2.1. Its string value is the published value,
// also used as a run's cell directory name ("none", "S+E", "Full").
type Condition string

// The 12 conditions, in the protocol's order.
const (
	CondNone  Condition = "none"
	CondSName Condition = "S_name"
	CondS     Condition = "S"
	CondE     Condition = "E"
	CondM     Condition = "M"
	CondC     Condition = "C"
	CondSM    Condition = "S+M"
	CondSE    Condition = "S+E"
	CondSC    Condition = "S+C"
	CondSMC   Condition = "S+M+C"
	CondSEC   Condition = "S+E+C"
	CondFull  Condition = "Full"
)

type conditionInfo struct {
	c     Condition
	enum  string // the Python enum name
	comps Components
}

var conditions = []conditionInfo{
	{CondNone, "NONE", 0},
	{CondSName, "S_NAME", CompSName},
	{CondS, "S", CompS},
	{CondE, "E", CompE},
	{CondM, "M", CompM},
	{CondC, "C", CompC},
	{CondSM, "S_M", CompS | CompM},
	{CondSE, "S_E", CompS | CompE},
	{CondSC, "S_C", CompS | CompC},
	{CondSMC, "S_M_C", CompS | CompM | CompC},
	{CondSEC, "S_E_C", CompS | CompE | CompC},
	{CondFull, "FULL", CompAll},
}

// AllConditions returns the 12 conditions in the protocol's order (§2.1).
func AllConditions() []Condition {
	out := make([]Condition, len(conditions))
	for i, ci := range conditions {
		out[i] = ci.c
	}
	return out
}

// CrossBackboneConditions returns the nine conditions run on every backbone
// (docs/protocol.md §2.1): none, S, E, M, C, S+M, S+E, S+C, Full.
func CrossBackboneConditions() []Condition {
	return []Condition{CondNone, CondS, CondE, CondM, CondC, CondSM, CondSE, CondSC, CondFull}
}

// ParseCondition parses a condition from its value ("S+E") or its Python
// enum name ("S_E"), case-insensitively (docs/protocol.md §2.1). The
// error wraps [ErrUnknownCondition] and lists the valid values.
func ParseCondition(s string) (Condition, error) {
	t := strings.TrimSpace(s)
	for _, ci := range conditions {
		if strings.EqualFold(t, string(ci.c)) || strings.EqualFold(t, ci.enum) {
			return ci.c, nil
		}
	}
	vals := make([]string, len(conditions))
	for i, ci := range conditions {
		vals[i] = string(ci.c)
	}
	return "", fmt.Errorf("%w %q (valid: %s; or enum names such as S_E)", ErrUnknownCondition, s, strings.Join(vals, ", "))
}

func (c Condition) info() (conditionInfo, bool) {
	for _, ci := range conditions {
		if ci.c == c {
			return ci, true
		}
	}
	return conditionInfo{}, false
}

// Valid reports whether c is one of the 12 conditions.
func (c Condition) Valid() bool {
	_, ok := c.info()
	return ok
}

// Components returns the component set c selects (§2.1); 0 for none or an
// invalid condition.
func (c Condition) Components() Components {
	ci, _ := c.info()
	return ci.comps
}

// EnumName returns the Python enum name of c ("S_E" for "S+E"), or "" if c
// is invalid.
func (c Condition) EnumName() string {
	ci, _ := c.info()
	return ci.enum
}

// String returns the condition's value.
func (c Condition) String() string { return string(c) }

// UnmarshalText parses text with [ParseCondition], so JSON configs may use
// values or enum names.
func (c *Condition) UnmarshalText(text []byte) error {
	v, err := ParseCondition(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Set implements pflag.Value with [ParseCondition].
func (c *Condition) Set(s string) error { return c.UnmarshalText([]byte(s)) }

// Type implements pflag.Value.
func (c *Condition) Type() string { return "condition" }
