// Package pyversion orders and matches Python package versions as PEP 440
// does (a subset: epochs and local labels are ignored), for every place
// that compares library versions: the index's latest version, the MCP
// tools' version argument, a project's pinned requirements.
package pyversion

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Version is a PEP 440 version reduced to what ordering needs: release
// numbers, pre-release phase, post and dev numbers. Epochs and local labels
// are ignored.
type Version struct {
	raw     string
	release []int
	pre     int // 0 none, 1 a, 2 b, 3 rc
	preN    int
	post    int // -1 none
	dev     int // -1 none
}

var pep440 = regexp.MustCompile(`^v?(?:\d+!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|c|rc|pre|preview)[-_.]?(\d*))?(?:(?:[-_.]?(post|rev|r)[-_.]?(\d*))|-(\d+))?(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+[a-z0-9.]+)?$`)

// Parse parses a PEP 440 version (case-insensitive, "v" prefix
// allowed). ok is false for anything else ("latest", "2.x").
func Parse(s string) (v Version, ok bool) {
	m := pep440.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return v, false
	}
	v.raw = s
	for _, p := range strings.Split(m[1], ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v.release = append(v.release, n)
	}
	switch m[2] {
	case "a", "alpha":
		v.pre = 1
	case "b", "beta":
		v.pre = 2
	case "c", "rc", "pre", "preview":
		v.pre = 3
	}
	v.preN, _ = strconv.Atoi(m[3])
	v.post = -1
	if m[4] != "" {
		v.post, _ = strconv.Atoi(m[5])
	} else if m[6] != "" {
		v.post, _ = strconv.Atoi(m[6])
	}
	v.dev = -1
	if m[7] != "" {
		v.dev, _ = strconv.Atoi(m[8])
	}
	return v, true
}

// Final reports whether v is a final (or post) release: no pre or dev part.
func (v Version) Final() bool { return v.pre == 0 && v.dev < 0 }

// Compare orders versions as PEP 440 does: release (zero-padded), then
// X.devN < X.aN < X.bN < X.rcN < X < X.postN, dev releases of a pre or post
// sorting just before it.
func (v Version) Compare(w Version) int {
	if c := cmpRelease(v.release, w.release); c != 0 {
		return c
	}
	phase := func(x Version) int {
		switch {
		case x.pre > 0:
			return x.pre
		case x.dev >= 0 && x.post < 0:
			return 0 // X.devN sorts before X.a0
		default:
			return 4
		}
	}
	if c := phase(v) - phase(w); c != 0 {
		return sign(c)
	}
	if c := v.preN - w.preN; c != 0 {
		return sign(c)
	}
	if c := v.post - w.post; c != 0 {
		return sign(c)
	}
	dev := func(x Version) int {
		if x.dev < 0 {
			return 1 << 30
		}
		return x.dev
	}
	return sign(dev(v) - dev(w))
}

func cmpRelease(a, b []int) int {
	for i := range max(len(a), len(b)) {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return sign(x - y)
		}
	}
	return 0
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// HasPrefix reports whether v's release, zero-padded, starts with prefix:
// 2.2.4 and 2.2 have prefix 2.2; 2.2 also has prefix 2.2.0.
func (v Version) HasPrefix(prefix []int) bool {
	if len(prefix) > len(v.release) {
		// 2.2 matches prefix 2.2.0: pad v with zeros.
		for i, p := range prefix {
			x := 0
			if i < len(v.release) {
				x = v.release[i]
			}
			if x != p {
				return false
			}
		}
		return true
	}
	for i, p := range prefix {
		if v.release[i] != p {
			return false
		}
	}
	return true
}

// ParseSpecifier parses a comma-separated PEP 440 specifier set plus
// X-ranges ("2.x", "2.5.*") into predicates; ok is false on syntax errors.
func ParseSpecifier(s string) (preds []func(Version) bool, ok bool) {
	for clause := range strings.SplitSeq(s, ",") {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		op := ""
		for _, o := range []string{"~=", "===", "==", "!=", ">=", "<=", ">", "<"} {
			if strings.HasPrefix(clause, o) {
				op, clause = o, strings.TrimSpace(clause[len(o):])
				break
			}
		}
		if op == "" {
			op = "=="
		}
		if strings.HasSuffix(clause, ".*") || strings.HasSuffix(clause, ".x") || clause == "x" || clause == "*" {
			base := strings.TrimSuffix(strings.TrimSuffix(clause, ".*"), ".x")
			var prefix []int
			if base != "x" && base != "*" {
				v, vok := Parse(base)
				if !vok {
					return nil, false
				}
				prefix = v.release
			}
			switch op {
			case "==", "===":
				preds = append(preds, func(v Version) bool { return v.HasPrefix(prefix) })
			case "!=":
				preds = append(preds, func(v Version) bool { return !v.HasPrefix(prefix) })
			default:
				return nil, false
			}
			continue
		}
		want, vok := Parse(clause)
		if !vok {
			return nil, false
		}
		switch op {
		case "==", "===":
			preds = append(preds, func(v Version) bool { return v.Compare(want) == 0 })
		case "!=":
			preds = append(preds, func(v Version) bool { return v.Compare(want) != 0 })
		case ">=":
			preds = append(preds, func(v Version) bool { return v.Compare(want) >= 0 })
		case "<=":
			preds = append(preds, func(v Version) bool { return v.Compare(want) <= 0 })
		case ">":
			preds = append(preds, func(v Version) bool { return v.Compare(want) > 0 })
		case "<":
			preds = append(preds, func(v Version) bool { return v.Compare(want) < 0 })
		case "~=":
			if len(want.release) < 2 {
				return nil, false
			}
			prefix := want.release[:len(want.release)-1]
			preds = append(preds, func(v Version) bool { return v.Compare(want) >= 0 && v.HasPrefix(prefix) })
		}
	}
	return preds, len(preds) > 0
}

// Sort returns the distinct labels sorted ascending by PEP 440
// order; unparseable labels sort first, by string.
func Sort(vs []string) []string {
	out := slices.Clone(vs)
	slices.Sort(out)
	out = slices.Compact(out)
	slices.SortStableFunc(out, CompareStrings)
	return out
}

// String returns the label v was parsed from.
func (v Version) String() string { return v.raw }

// Release returns v's release numbers ("2.2.4" → [2 2 4]).
func (v Version) Release() []int { return slices.Clone(v.release) }

// IsPost reports whether v is a post release.
func (v Version) IsPost() bool { return v.post >= 0 }

// CompareStrings orders two version labels: by PEP 440 when both parse, an
// unparseable label before a parseable one, and two unparseable ones by
// string.
func CompareStrings(a, b string) int {
	va, oka := Parse(a)
	vb, okb := Parse(b)
	switch {
	case oka && okb:
		return va.Compare(vb)
	case oka:
		return 1
	case okb:
		return -1
	}
	return strings.Compare(a, b)
}

// A Specifier is a PEP 440 version specifier set (">=1.26,<2.5",
// "~=2.1, !=2.3", "==2.2.*"): a version is in the set when it satisfies
// every clause. The zero Specifier contains every version. Specifiers are
// what a project's requirements say (docs/projects.md); unlike
// [ParseSpecifier], X-ranges ("2.x") are not PEP 440 and are refused.
type Specifier struct {
	text    string
	clauses []clause
}

// A clause is one comparison of a [Specifier].
type clause struct {
	op     string // "~=", "==", "!=", "<=", ">=", "<", ">", "==="
	v      Version
	raw    string // the version as written, for "===" and messages
	prefix bool   // "==V.*" or "!=V.*"
}

// A SpecifierError reports a specifier set that is not PEP 440.
type SpecifierError struct {
	Specifier string // the whole set as written
	Clause    string // the clause that does not parse
	Reason    string
}

func (e *SpecifierError) Error() string {
	return fmt.Sprintf("version specifier %q: clause %q %s", e.Specifier, e.Clause, e.Reason)
}

// ParseSpecifierSet parses a comma-separated PEP 440 specifier set ("" is
// the set of every version). Each clause is an operator (~=, ==, !=, <=,
// >=, <, >, ===) and a version; "==" and "!=" also take a prefix "V.*". A
// clause that is not PEP 440 is a *[SpecifierError] naming it.
func ParseSpecifierSet(s string) (Specifier, error) {
	sp := Specifier{text: strings.TrimSpace(s)}
	for raw := range strings.SplitSeq(s, ",") {
		c := strings.TrimSpace(raw)
		if c == "" {
			if strings.TrimSpace(s) != "" {
				return Specifier{}, &SpecifierError{Specifier: s, Clause: raw, Reason: "is empty"}
			}
			continue
		}
		fail := func(reason string) (Specifier, error) {
			return Specifier{}, &SpecifierError{Specifier: s, Clause: c, Reason: reason}
		}
		var cl clause
		for _, o := range []string{"~=", "===", "==", "!=", ">=", "<=", ">", "<"} {
			if strings.HasPrefix(c, o) {
				cl.op = o
				break
			}
		}
		if cl.op == "" {
			return fail("has no comparison operator (~=, ==, !=, <=, >=, <, >, ===)")
		}
		cl.raw = strings.TrimSpace(c[len(cl.op):])
		ver := cl.raw
		if cl.op == "===" {
			cl.v, _ = Parse(ver)
			sp.clauses = append(sp.clauses, cl)
			continue
		}
		if strings.HasSuffix(ver, ".*") {
			if cl.op != "==" && cl.op != "!=" {
				return fail("uses a prefix match (.*), which only == and != take")
			}
			cl.prefix, ver = true, strings.TrimSuffix(ver, ".*")
		}
		v, ok := Parse(ver)
		if !ok {
			return fail("is not a PEP 440 version")
		}
		if cl.prefix && (!v.Final() || v.IsPost()) {
			return fail("is a prefix match of a pre, post or dev release")
		}
		if cl.op == "~=" && len(v.release) < 2 {
			return fail("needs at least two release numbers (~=2.1, not ~=2)")
		}
		cl.v = v
		sp.clauses = append(sp.clauses, cl)
	}
	return sp, nil
}

// String returns the set as it was written.
func (s Specifier) String() string { return s.text }

// Contains reports whether v satisfies every clause of s, with PEP 440's
// rules: "==2.2" is 2.2.0 and not 2.2.4 (a prefix is "==2.2.*"); "<V"
// excludes pre-releases of V and ">V" post-releases of V unless V is one;
// local labels are ignored. Whether pre-releases are wanted at all is the
// caller's choice (they are in the set when a clause allows them).
func (s Specifier) Contains(v Version) bool {
	for _, c := range s.clauses {
		if !c.contains(v) {
			return false
		}
	}
	return true
}

func (c clause) contains(v Version) bool {
	switch c.op {
	case "===":
		return strings.EqualFold(strings.TrimSpace(v.raw), c.raw)
	case "==":
		if c.prefix {
			return v.HasPrefix(c.v.release)
		}
		return v.Compare(c.v) == 0
	case "!=":
		if c.prefix {
			return !v.HasPrefix(c.v.release)
		}
		return v.Compare(c.v) != 0
	case ">=":
		return v.Compare(c.v) >= 0
	case "<=":
		return v.Compare(c.v) <= 0
	case "<":
		if v.Compare(c.v) >= 0 {
			return false
		}
		// 2.0rc1 is below 2.0 but "<2.0" does not mean it.
		return c.v.pre > 0 || c.v.dev >= 0 || !(!v.Final() && cmpRelease(v.release, c.v.release) == 0)
	case ">":
		if v.Compare(c.v) <= 0 {
			return false
		}
		// 2.0.post1 is above 2.0 but ">2.0" does not mean it.
		return c.v.IsPost() || !(v.IsPost() && cmpRelease(v.release, c.v.release) == 0)
	case "~=":
		return v.Compare(c.v) >= 0 && v.HasPrefix(c.v.release[:len(c.v.release)-1])
	}
	return false
}

// Pin returns the version of a set that is one exact clause ("==2.2.4",
// "===2.2.4"); ok is false for anything else, a prefix match included.
func (s Specifier) Pin() (v Version, ok bool) {
	if len(s.clauses) != 1 {
		return v, false
	}
	c := s.clauses[0]
	if (c.op != "==" && c.op != "===") || c.prefix {
		return v, false
	}
	if c.op == "===" {
		return Parse(c.raw)
	}
	return c.v, true
}

// Anchor returns the version a set is closest to when no version it
// contains is at hand: its pin or highest lower bound (==, ===, ~=, >=, >,
// a prefix), else its lowest upper bound (<, <=). ok is false when the set
// names neither ("" or only != clauses).
func (s Specifier) Anchor() (v Version, ok bool) {
	for _, c := range s.clauses {
		switch {
		case c.op == "==" || c.op == "===" || c.op == "~=" || c.op == ">=" || c.op == ">":
			if !ok || c.v.Compare(v) > 0 {
				v, ok = c.v, true
			}
		}
	}
	if ok {
		return v, true
	}
	for _, c := range s.clauses {
		if c.op == "<" || c.op == "<=" {
			if !ok || c.v.Compare(v) < 0 {
				v, ok = c.v, true
			}
		}
	}
	return v, ok
}

// Nearest returns the version of among closest to target: of the highest
// version below it and the lowest above it (itself when among has it), the
// one sharing the longer release prefix with target, then the one whose
// first differing release number is closer, then the lower one, since an
// API is more likely still there in a later release than already there in
// an earlier one (2.2.4 for 2.3.1 among 1.24.2, 2.2.4 and 2.4.6; 2.4.6 for
// 3.0). ok is false when among is empty.
func Nearest(target Version, among []Version) (best Version, ok bool) {
	var below, above *Version
	for i := range among {
		v := &among[i]
		switch c := v.Compare(target); {
		case c == 0:
			return *v, true
		case c < 0 && (below == nil || v.Compare(*below) > 0):
			below = v
		case c > 0 && (above == nil || v.Compare(*above) < 0):
			above = v
		}
	}
	switch {
	case below == nil && above == nil:
		return best, false
	case below == nil:
		return *above, true
	case above == nil:
		return *below, true
	}
	common := func(v Version) (n, diff int) {
		for i := range max(len(v.release), len(target.release)) {
			var x, y int
			if i < len(v.release) {
				x = v.release[i]
			}
			if i < len(target.release) {
				y = target.release[i]
			}
			if x != y {
				return i, abs(x - y)
			}
		}
		return max(len(v.release), len(target.release)), 0
	}
	nb, db := common(*below)
	na, da := common(*above)
	if na > nb || na == nb && da < db {
		return *above, true
	}
	return *below, true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
