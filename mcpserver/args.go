package mcpserver

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Input size limits. Larger inputs are rejected with a tool error naming the
// limit, so that a runaway agent cannot make the server allocate or run
// without bound.
const (
	MaxQueryChars = 2000    // api_name, library, version; the part of a search query kept
	MaxCodeBytes  = 200_000 // check_code's code
	// MaxPastedQueryChars bounds a search query as sent: one longer than
	// MaxQueryChars (a pasted traceback, a long task with its code) is cut
	// to its first and last MaxQueryChars/2 characters (cutQuery).
	MaxPastedQueryChars = 16384
)

// cutQuery returns q cut to its first and last half runes, joined by a line
// "…": the first line is the question of a task query and the last one the
// error of a pasted traceback, the lines the exact-name rule reads
// (index.questionLine), and the middle is the least telling part.
func cutQuery(q string, half int) string {
	r := []rune(q)
	if len(r) <= 2*half {
		return q
	}
	return string(r[:half]) + "\n…\n" + string(r[len(r)-half:])
}

// A param describes one tool argument: its canonical name, its JSON type and
// the aliases agents are known to send instead (Context7's MCP server maps
// the same slips).
type param struct {
	name    string
	kind    string // "string", "integer", "boolean", "strings"
	aliases []string
}

// args holds one call's arguments after alias resolution, keyed by
// canonical name.
type args struct {
	tool string
	m    map[string]any
}

// argError is what the agent did wrong, returned to it as a tool error.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) error { return &argError{fmt.Sprintf(format, a...)} }

// bindArgs maps raw (a tool call's arguments) onto params: aliases become
// canonical names, keys are matched case-insensitively and with '-' or '_'
// removed ("api-name", "apiName", "API_NAME" all mean api_name). An unknown
// key is an error that lists the valid parameters; a canonical name and an
// alias carrying different values is an error too.
func bindArgs(tool string, raw map[string]any, params []param) (*args, error) {
	lookup := make(map[string]string)
	for _, p := range params {
		lookup[foldKey(p.name)] = p.name
		for _, a := range p.aliases {
			lookup[foldKey(a)] = p.name
		}
	}
	out := &args{tool: tool, m: make(map[string]any, len(raw))}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic conflict messages
	for _, k := range keys {
		v := raw[k]
		canon, ok := lookup[foldKey(k)]
		if !ok {
			names := make([]string, len(params))
			for i, p := range params {
				names[i] = p.name
			}
			return nil, argErrorf("%s: unknown parameter %q; valid parameters: %s", tool, k, strings.Join(names, ", "))
		}
		if v == nil {
			continue // JSON null means "not given"
		}
		if prev, dup := out.m[canon]; dup && fmt.Sprint(prev) != fmt.Sprint(v) {
			return nil, argErrorf("%s: parameter %q given twice with different values (%q is an alias of %q)", tool, canon, k, canon)
		}
		out.m[canon] = v
	}
	return out, nil
}

// foldKey normalises an argument name for alias matching.
func foldKey(k string) string {
	k = strings.ToLower(k)
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(k)
}

// has reports whether the argument was given (and not null).
func (a *args) has(name string) bool { _, ok := a.m[name]; return ok }

// str returns a string argument, "" when absent. A number is accepted for
// "version" only (2.2); other types are an error. Strings
// longer than max characters are an error.
func (a *args) str(name string, max int) (string, error) {
	v, ok := a.m[name]
	if !ok {
		return "", nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		if name != "version" { // a version given as a number (2.2) is fine
			return "", argErrorf("%s: %s must be a string, got %s", a.tool, name, jsonType(v))
		}
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return "", argErrorf("%s: %s must be a string, got %s", a.tool, name, jsonType(v))
	}
	s = strings.TrimSpace(s)
	if n := utf8.RuneCountInString(s); max > 0 && n > max {
		return "", argErrorf("%s: %s is %d characters long; the limit is %d", a.tool, name, n, max)
	}
	return s, nil
}

// requireStr is str for a required argument.
func (a *args) requireStr(name string, max int) (string, error) {
	s, err := a.str(name, max)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", argErrorf("%s: %s is required and must be a non-empty string", a.tool, name)
	}
	return s, nil
}

// integer returns an integer argument or def when absent. JSON numbers with
// an integral value and numeric strings ("5") are accepted.
func (a *args) integer(name string, def int) (int, error) {
	v, ok := a.m[name]
	if !ok {
		return def, nil
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int:
		return x, nil
	case string:
		p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, argErrorf("%s: %s must be an integer, got the string %q", a.tool, name, truncate(x, 40))
		}
		f = p
	default:
		return 0, argErrorf("%s: %s must be an integer, got %s", a.tool, name, jsonType(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, argErrorf("%s: %s must be an integer, got %v", a.tool, name, f)
	}
	if f > math.MaxInt32 {
		f = math.MaxInt32 // out-of-range budgets are clamped by the caller, never rejected (T17)
	}
	if f < math.MinInt32 {
		f = math.MinInt32
	}
	return int(f), nil
}

// boolean returns a boolean argument or def when absent; "true"/"false"
// strings are accepted.
func (a *args) boolean(name string, def bool) (bool, error) {
	v, ok := a.m[name]
	if !ok {
		return def, nil
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return b, nil
		}
	}
	return false, argErrorf("%s: %s must be a boolean, got %s", a.tool, name, jsonType(v))
}

// strs returns a list-of-strings argument, nil when absent. A single string
// is split at commas, '+' and whitespace ("S,E", "S+E"), a common agent slip.
func (a *args) strs(name string, maxItems int) ([]string, error) {
	v, ok := a.m[name]
	if !ok {
		return nil, nil
	}
	var out []string
	switch x := v.(type) {
	case string:
		out = strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == '+' || r == ' ' || r == '\t' })
	case []string:
		out = x
	case []any:
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, argErrorf("%s: %s[%d] must be a string, got %s", a.tool, name, i, jsonType(e))
			}
			out = append(out, s)
		}
	default:
		return nil, argErrorf("%s: %s must be an array of strings, got %s", a.tool, name, jsonType(v))
	}
	if maxItems > 0 && len(out) > maxItems {
		return nil, argErrorf("%s: %s has %d items; the limit is %d", a.tool, name, len(out), maxItems)
	}
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
		if utf8.RuneCountInString(out[i]) > MaxQueryChars {
			return nil, argErrorf("%s: %s[%d] is too long", a.tool, name, i)
		}
	}
	return out, nil
}

// jsonType names the JSON type of a decoded value, for error messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, int, int64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
