// Package pyversion orders and matches Python package versions as PEP 440
// does (a subset: epochs and local labels are ignored), for every place
// that compares library versions: the index's latest version, the MCP
// tools' version argument, a project's pinned requirements.
package pyversion

import (
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
