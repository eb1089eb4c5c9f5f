package private

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/internal/pyversion"
)

// A Requirement is one declared dependency of a library: a PEP 508
// dependency specifier as Requires-Dist, [project] dependencies or
// install_requires write it ("attrs>=19.2.0", "exceptiongroup; python_version
// < '3.11'").
type Requirement struct {
	Name      string // as written, e.g. "typing_extensions"
	Extras    []string
	Specifier string // PEP 440 specifier set, e.g. ">=19.2.0"; "" when none
	Marker    string // environment marker after ';', "" when none
	Line      string // the specifier as written
}

var reqName = regexp.MustCompile(`^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[([^\]]*)\])?\s*`)

// ParseRequirement parses a PEP 508 dependency specifier. A URL
// requirement ("name @ https://...") is an error: a layer installs nothing
// from the network.
func ParseRequirement(s string) (Requirement, error) {
	r := Requirement{Line: strings.TrimSpace(s)}
	spec, marker, _ := strings.Cut(r.Line, ";")
	r.Marker = strings.TrimSpace(marker)
	m := reqName.FindStringSubmatch(spec)
	if m == nil {
		return r, fmt.Errorf("requirement %q: no distribution name", r.Line)
	}
	r.Name = m[1]
	for e := range strings.SplitSeq(m[2], ",") {
		if e = strings.TrimSpace(e); e != "" {
			r.Extras = append(r.Extras, e)
		}
	}
	rest := strings.TrimSpace(spec[len(m[0]):])
	if strings.HasPrefix(rest, "@") {
		return r, fmt.Errorf("requirement %q: a URL requirement cannot be installed without a network", r.Line)
	}
	rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")"))
	if rest != "" {
		if _, ok := pyversion.ParseSpecifier(rest); !ok {
			return r, fmt.Errorf("requirement %q: version specifier %q is not PEP 440", r.Line, rest)
		}
	}
	r.Specifier = rest
	return r, nil
}

// NormalizeName returns a distribution name in PEP 503 normal form:
// lower case, runs of '-', '_' and '.' as one '-' ("Typing_Extensions" →
// "typing-extensions").
func NormalizeName(name string) string {
	return strings.ToLower(normRun.ReplaceAllString(name, "-"))
}

var normRun = regexp.MustCompile(`[-_.]+`)

// Allows reports whether version satisfies r's specifier (true when r has
// none or the version is not PEP 440).
func (r Requirement) Allows(version string) bool {
	if r.Specifier == "" {
		return true
	}
	v, ok := pyversion.Parse(version)
	if !ok {
		return true
	}
	preds, _ := pyversion.ParseSpecifier(r.Specifier)
	for _, p := range preds {
		if !p(v) {
			return false
		}
	}
	return true
}

// A Platform is what environment markers are evaluated against (PEP 508
// "Environment Markers"): the Python of the environment on Linux.
type Platform struct {
	Python string // full version of the environment's python3, e.g. "3.13.5"
	// Machine is platform.machine(), e.g. "x86_64".
	Machine string
}

// Applies reports whether r is needed on p: its marker evaluates true with
// no extra requested. A marker this evaluator cannot read counts as true,
// so the dependency is looked for rather than silently dropped.
func (r Requirement) Applies(p Platform) bool {
	if r.Marker == "" {
		return true
	}
	e := markerEval{toks: markerTokens(r.Marker), p: p}
	v, ok := e.or()
	if !ok || e.i != len(e.toks) {
		return true
	}
	return v
}

var markerTok = regexp.MustCompile(`\s*("[^"]*"|'[^']*'|\(|\)|===|==|!=|~=|<=|>=|<|>|not\s+in\b|in\b|and\b|or\b|[A-Za-z_][A-Za-z0-9_.]*)`)

func markerTokens(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		m := markerTok.FindStringSubmatchIndex(s)
		if m == nil || m[0] != 0 {
			return append(out, "\x00") // unreadable
		}
		out = append(out, strings.Join(strings.Fields(s[m[2]:m[3]]), " "))
		s = s[m[1]:]
	}
	return out
}

// markerEval is a recursive-descent evaluator of PEP 508 markers:
// or_expr := and_expr ('or' and_expr)*; and_expr := atom ('and' atom)*;
// atom := '(' or_expr ')' | value op value.
type markerEval struct {
	toks []string
	i    int
	p    Platform
}

func (e *markerEval) peek() string {
	if e.i < len(e.toks) {
		return e.toks[e.i]
	}
	return ""
}

func (e *markerEval) or() (bool, bool) {
	v, ok := e.and()
	for ok && e.peek() == "or" {
		e.i++
		w, wok := e.and()
		v, ok = v || w, wok
	}
	return v, ok
}

func (e *markerEval) and() (bool, bool) {
	v, ok := e.atom()
	for ok && e.peek() == "and" {
		e.i++
		w, wok := e.atom()
		v, ok = v && w, wok
	}
	return v, ok
}

func (e *markerEval) atom() (bool, bool) {
	if e.peek() == "(" {
		e.i++
		v, ok := e.or()
		if !ok || e.peek() != ")" {
			return false, false
		}
		e.i++
		return v, true
	}
	if e.i+3 > len(e.toks) {
		return false, false
	}
	l, op, r := e.toks[e.i], e.toks[e.i+1], e.toks[e.i+2]
	e.i += 3
	lv, lvar, lok := e.value(l)
	rv, rvar, rok := e.value(r)
	if !lok || !rok {
		return false, false
	}
	if lvar == "extra" || rvar == "extra" {
		return false, true // no extra is requested
	}
	versionVar := lvar == "python_version" || lvar == "python_full_version" || rvar == "python_version" || rvar == "python_full_version"
	switch op {
	case "in":
		return strings.Contains(rv, lv), true
	case "not in":
		return !strings.Contains(rv, lv), true
	}
	if versionVar {
		if lvar != "" {
			preds, ok := pyversion.ParseSpecifier(op + rv)
			v, vok := pyversion.Parse(lv)
			if !ok || !vok {
				return false, false
			}
			return preds[0](v), true
		}
		return false, false
	}
	switch op {
	case "==", "===":
		return lv == rv, true
	case "!=":
		return lv != rv, true
	}
	return false, false
}

// value returns a marker operand's value and, for a variable, its name.
func (e *markerEval) value(tok string) (val, variable string, ok bool) {
	if len(tok) >= 2 && (tok[0] == '"' || tok[0] == '\'') {
		return tok[1 : len(tok)-1], "", true
	}
	short := e.p.Python
	if parts := strings.Split(short, "."); len(parts) >= 2 {
		short = parts[0] + "." + parts[1]
	}
	switch tok {
	case "python_version":
		return short, tok, true
	case "python_full_version":
		return e.p.Python, tok, true
	case "os_name":
		return "posix", tok, true
	case "sys_platform":
		return "linux", tok, true
	case "platform_system":
		return "Linux", tok, true
	case "platform_machine":
		return e.p.Machine, tok, true
	case "platform_python_implementation":
		return "CPython", tok, true
	case "implementation_name":
		return "cpython", tok, true
	case "implementation_version":
		return e.p.Python, tok, true
	case "extra":
		return "", tok, true
	}
	return "", "", false
}
