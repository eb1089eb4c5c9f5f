package mcpserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/pyversion"
)

// Version match kinds reported with every served item.
const (
	MatchExact    = "exact"    // the requested version is served (1.20 == 1.20.0)
	MatchRange    = "range"    // a specifier, prefix or X-range selected the served version
	MatchLatest   = "latest"   // no version requested (or "latest"): the highest final release
	MatchFallback = "fallback" // nothing satisfies the request; another version is offered, labelled
)

// A versionChoice is the outcome of resolving a requested version against
// the versions a library has bundles for.
type versionChoice struct {
	Requested string   `json:"requested"` // as the agent wrote it; "" when none
	Served    string   `json:"served"`    // the version whose bundles are served; "" when the library has unversioned bundles only
	Match     string   `json:"match"`     // MatchExact, MatchRange, MatchLatest or MatchFallback
	Available []string `json:"available"`
	// From, Declared and Reason are set when the version came from the
	// agent's project (docs/projects.md): the files and lines that declare
	// it ("requirements.txt:3"), the declarations as written, and why an
	// approximate version is served.
	From     string `json:"from,omitempty"`
	Declared string `json:"declared,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Source is the source kind served ("debian", "private") when the
	// library is indexed from several, or one was asked for.
	Source string `json:"source,omitempty"`
}

// Note is the human sentence describing the choice, e.g. "range match
// (requested ~=2.5, served 2.7)"; "" for a plain latest choice.
func (c versionChoice) Note() string {
	if c.From != "" {
		switch c.Match {
		case MatchExact:
			return fmt.Sprintf("the project's %s declares %s: exact match, %s served", c.From, c.Declared, c.Served)
		case MatchRange:
			return fmt.Sprintf("the project's %s declares %s: %s, the newest indexed version it allows, is served", c.From, c.Declared, c.Served)
		case MatchApproximate:
			if c.Declared == "" {
				return "APPROXIMATE version: the project's " + c.Reason
			}
			return fmt.Sprintf("APPROXIMATE version: the project's %s declares %s, but %s", c.From, c.Declared, c.Reason)
		}
	}
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
	if _, ok := pyversion.Parse(strings.TrimLeft(req, "=")); ok {
		return nil
	}
	if _, ok := pyversion.ParseSpecifier(req); ok {
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
	c := versionChoice{Requested: strings.TrimSpace(requested), Available: pyversion.Sort(available)}
	var parsed []pyversion.Version
	for _, a := range c.Available {
		if v, ok := pyversion.Parse(a); ok {
			parsed = append(parsed, v)
		}
	}
	latest := func() string {
		for i := len(parsed) - 1; i >= 0; i-- {
			if parsed[i].Final() {
				return parsed[i].String()
			}
		}
		if len(parsed) > 0 {
			return parsed[len(parsed)-1].String()
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
		if want, ok := pyversion.Parse(plain); ok {
			for i := len(parsed) - 1; i >= 0; i-- {
				if parsed[i].Compare(want) == 0 {
					c.Served, c.Match = parsed[i].String(), MatchExact
					return c
				}
			}
			if !strings.HasPrefix(req, "==") && want.Final() && !want.IsPost() {
				if s := highest(parsed, func(v pyversion.Version) bool { return v.HasPrefix(want.Release()) }); s != "" {
					c.Served, c.Match = s, MatchRange
					return c
				}
			}
			c.Served, c.Match = latest(), MatchFallback
			return c
		}
	}
	preds, ok := pyversion.ParseSpecifier(req)
	if !ok {
		c.Served, c.Match = latest(), MatchFallback
		return c
	}
	if s := highest(parsed, func(v pyversion.Version) bool {
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
func highest(parsed []pyversion.Version, ok func(pyversion.Version) bool) string {
	var pre string
	for i := len(parsed) - 1; i >= 0; i-- {
		if !ok(parsed[i]) {
			continue
		}
		if parsed[i].Final() {
			return parsed[i].String()
		}
		if pre == "" {
			pre = parsed[i].String()
		}
	}
	return pre
}
