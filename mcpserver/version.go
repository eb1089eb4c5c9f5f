package mcpserver

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Version match kinds reported with every served item.
const (
	MatchExact    = "exact"    // the requested version is served (1.20 == 1.20.0)
	MatchRange    = "range"    // a specifier, prefix or X-range selected the served version
	MatchLatest   = "latest"   // no version requested (or "latest"): the highest final release
	MatchFallback = "fallback" // nothing satisfies the request; another version is offered, labelled
)

// pyVersion is a PEP 440 version reduced to what ordering needs: release
// numbers, pre-release phase, post and dev numbers. Epochs and local labels
// are ignored.
type pyVersion struct {
	raw     string
	release []int
	pre     int // 0 none, 1 a, 2 b, 3 rc
	preN    int
	post    int // -1 none
	dev     int // -1 none
}

var pep440 = regexp.MustCompile(`^v?(?:\d+!)?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|c|rc|pre|preview)[-_.]?(\d*))?(?:(?:[-_.]?(post|rev|r)[-_.]?(\d*))|-(\d+))?(?:[-_.]?(dev)[-_.]?(\d*))?(?:\+[a-z0-9.]+)?$`)

// parseVersion parses a PEP 440 version (case-insensitive, "v" prefix
// allowed). ok is false for anything else ("latest", "2.x").
func parseVersion(s string) (v pyVersion, ok bool) {
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

// final reports whether v is a final (or post) release: no pre or dev part.
func (v pyVersion) final() bool { return v.pre == 0 && v.dev < 0 }

// compare orders versions as PEP 440 does: release (zero-padded), then
// X.devN < X.aN < X.bN < X.rcN < X < X.postN, dev releases of a pre or post
// sorting just before it.
func (v pyVersion) compare(w pyVersion) int {
	if c := cmpRelease(v.release, w.release); c != 0 {
		return c
	}
	phase := func(x pyVersion) int {
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
	dev := func(x pyVersion) int {
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

// hasPrefix reports whether v's release, zero-padded, starts with prefix:
// 2.2.4 and 2.2 have prefix 2.2; 2.2 also has prefix 2.2.0.
func hasPrefix(v pyVersion, prefix []int) bool {
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

// A versionChoice is the outcome of resolving a requested version against
// the versions a library has bundles for.
type versionChoice struct {
	Requested string   `json:"requested"` // as the agent wrote it; "" when none
	Served    string   `json:"served"`    // the version whose bundles are served; "" when the library has unversioned bundles only
	Match     string   `json:"match"`     // MatchExact, MatchRange, MatchLatest or MatchFallback
	Available []string `json:"available"`
}

// Note is the human sentence describing the choice, e.g. "range match
// (requested ~=2.5, served 2.7)"; "" for a plain latest choice.
func (c versionChoice) Note() string {
	switch c.Match {
	case MatchExact:
		return fmt.Sprintf("exact match (requested %s, served %s)", c.Requested, c.Served)
	case MatchRange:
		return fmt.Sprintf("range match (requested %s, served %s)", c.Requested, c.Served)
	case MatchFallback:
		avail := make([]string, len(c.Available))
		for i, a := range c.Available {
			avail[i] = orUnknown(a)
		}
		return fmt.Sprintf("version %s is not available (available: %s); %s is offered as a FALLBACK and may differ from %s",
			c.Requested, strings.Join(avail, ", "), orUnknown(c.Served), c.Requested)
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unversioned"
	}
	return s
}

// VersionExamples shows valid version arguments, for error messages.
const VersionExamples = `"2.2.4" (exact), "2.2" (prefix), "2.x", "~=2.1", ">=1.26,<2", or "latest"`

// checkVersion returns an argument error unless v is empty, "latest" (or
// "*", "any"), a PEP 440 version or a specifier resolveVersion understands.
// Anything else ("garbage!!") would otherwise be served as a silent
// fallback.
func checkVersion(tool, v string) error {
	req := strings.ToLower(strings.TrimSpace(v))
	switch req {
	case "", "latest", "*", "any":
		return nil
	}
	if _, ok := parseVersion(strings.TrimLeft(req, "=")); ok {
		return nil
	}
	if _, ok := parseSpecifier(req); ok {
		return nil
	}
	return argErrorf("%s: version %q is not a version or version range; use e.g. %s, or omit it for the latest indexed release",
		tool, truncate(v, 60), VersionExamples)
}

// resolveVersion picks the served version among available for the request
// (novelapi's PEP 440 subset, scenarios T1–T3):
//
//   - "" or "latest": the highest final release (never rc/dev unless no
//     final exists) → MatchLatest.
//   - a plain version ("1.20.0", "==2.0.0rc1", "0.24.post1", "2024.1"):
//     an equal version (zero-padded) → MatchExact; otherwise, for a plain
//     version, the highest final release starting with it ("2.2" → 2.2.4)
//     → MatchRange.
//   - "2.x", "2.*", "==2.*", "~=2.5", ">=1.0,<2", "!=2.6": the highest
//     version satisfying every clause (final releases preferred) → MatchRange.
//   - nothing satisfies: the latest is offered → MatchFallback.
//
// available may hold "" for bundles without provenance: with no version
// requested they are MatchLatest, with one they are a MatchFallback (their
// version is unknown).
func resolveVersion(requested string, available []string) versionChoice {
	c := versionChoice{Requested: strings.TrimSpace(requested), Available: sortVersions(available)}
	var parsed []pyVersion
	for _, a := range c.Available {
		if v, ok := parseVersion(a); ok {
			parsed = append(parsed, v)
		}
	}
	latest := func() string {
		for i := len(parsed) - 1; i >= 0; i-- {
			if parsed[i].final() {
				return parsed[i].raw
			}
		}
		if len(parsed) > 0 {
			return parsed[len(parsed)-1].raw
		}
		if len(c.Available) > 0 {
			return c.Available[len(c.Available)-1]
		}
		return ""
	}
	req := strings.ToLower(c.Requested)
	if req == "" || req == "latest" || req == "*" || req == "any" || len(parsed) == 0 {
		c.Served, c.Match = latest(), MatchLatest
		if len(parsed) == 0 && req != "" && req != "latest" && req != "*" && req != "any" && len(c.Available) > 0 {
			// Only unparseable labels: exact string match or fallback.
			if slices.Contains(c.Available, c.Requested) {
				c.Served, c.Match = c.Requested, MatchExact
			} else {
				c.Match = MatchFallback
			}
		}
		return c
	}
	// Plain version, possibly with "==" or "===".
	plain := strings.TrimLeft(req, "=")
	if !strings.ContainsAny(plain, "*<>!~,") && !strings.HasSuffix(plain, ".x") && plain != "x" {
		if want, ok := parseVersion(plain); ok {
			for i := len(parsed) - 1; i >= 0; i-- {
				if parsed[i].compare(want) == 0 {
					c.Served, c.Match = parsed[i].raw, MatchExact
					return c
				}
			}
			if !strings.HasPrefix(req, "==") && want.final() && want.post < 0 {
				if s := highest(parsed, func(v pyVersion) bool { return hasPrefix(v, want.release) }); s != "" {
					c.Served, c.Match = s, MatchRange
					return c
				}
			}
			c.Served, c.Match = latest(), MatchFallback
			return c
		}
	}
	preds, ok := parseSpecifier(req)
	if !ok {
		c.Served, c.Match = latest(), MatchFallback
		return c
	}
	if s := highest(parsed, func(v pyVersion) bool {
		for _, p := range preds {
			if !p(v) {
				return false
			}
		}
		return true
	}); s != "" {
		c.Served, c.Match = s, MatchRange
		return c
	}
	c.Served, c.Match = latest(), MatchFallback
	return c
}

// highest returns the raw label of the highest version satisfying ok,
// preferring final releases; "" when none does. parsed is sorted ascending.
func highest(parsed []pyVersion, ok func(pyVersion) bool) string {
	var pre string
	for i := len(parsed) - 1; i >= 0; i-- {
		if !ok(parsed[i]) {
			continue
		}
		if parsed[i].final() {
			return parsed[i].raw
		}
		if pre == "" {
			pre = parsed[i].raw
		}
	}
	return pre
}

// parseSpecifier parses a comma-separated PEP 440 specifier set plus
// X-ranges ("2.x", "2.5.*") into predicates; ok is false on syntax errors.
func parseSpecifier(s string) (preds []func(pyVersion) bool, ok bool) {
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
				v, vok := parseVersion(base)
				if !vok {
					return nil, false
				}
				prefix = v.release
			}
			switch op {
			case "==", "===":
				preds = append(preds, func(v pyVersion) bool { return hasPrefix(v, prefix) })
			case "!=":
				preds = append(preds, func(v pyVersion) bool { return !hasPrefix(v, prefix) })
			default:
				return nil, false
			}
			continue
		}
		want, vok := parseVersion(clause)
		if !vok {
			return nil, false
		}
		switch op {
		case "==", "===":
			preds = append(preds, func(v pyVersion) bool { return v.compare(want) == 0 })
		case "!=":
			preds = append(preds, func(v pyVersion) bool { return v.compare(want) != 0 })
		case ">=":
			preds = append(preds, func(v pyVersion) bool { return v.compare(want) >= 0 })
		case "<=":
			preds = append(preds, func(v pyVersion) bool { return v.compare(want) <= 0 })
		case ">":
			preds = append(preds, func(v pyVersion) bool { return v.compare(want) > 0 })
		case "<":
			preds = append(preds, func(v pyVersion) bool { return v.compare(want) < 0 })
		case "~=":
			if len(want.release) < 2 {
				return nil, false
			}
			prefix := want.release[:len(want.release)-1]
			preds = append(preds, func(v pyVersion) bool { return v.compare(want) >= 0 && hasPrefix(v, prefix) })
		}
	}
	return preds, len(preds) > 0
}

// sortVersions returns the distinct labels sorted ascending by PEP 440
// order; unparseable labels sort first, by string.
func sortVersions(vs []string) []string {
	out := slices.Clone(vs)
	slices.Sort(out)
	out = slices.Compact(out)
	slices.SortStableFunc(out, func(a, b string) int {
		va, oka := parseVersion(a)
		vb, okb := parseVersion(b)
		switch {
		case oka && okb:
			return va.compare(vb)
		case oka:
			return 1
		case okb:
			return -1
		}
		return strings.Compare(a, b)
	})
	return out
}
