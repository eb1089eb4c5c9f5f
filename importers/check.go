package importers

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/pool"
)

// CheckHead returns the check block that opens the execution test of an
// imported task whose spy counts the entry point's calls
// ([pool.SpyScopeEntryPoint]): it asserts that the spy is installed,
// resets the count and ends with [pool.EndCheckMarker]. The harness
// wraps the entry point after the completion runs and fails a passing test
// whose entry point made no target call with taxonomy rule (a)'s message.
func CheckHead(apiName string) string {
	return "# --- target-API call check (auto-injected; the harness counts the calls made inside the entry point) ---\n" +
		fmt.Sprintf("assert _target_api_spy_installed, %s\n", pyQuote("target-API spy failed to install for "+apiName)) +
		"_target_api_call_count[0] = 0\n" + pool.EndCheckMarker + "\n"
}

// Imported pools define a function that their tests call (CodeUpdateArena's
// solution function, HumanEval's entry point), so the completion itself
// never calls the target while it runs: the calls happen inside the tests,
// next to the tests' own calls of the same API when they compute expected
// values. The protocol's check block (docs/protocol.md §4.1, layout
// item 1), which asserts a call before the test, would fail every
// reference. The tasks therefore use pool.SpyScopeEntryPoint with
// [CheckHead]; the C1 check's monitored script ([MonitoredScript]), which
// runs outside the harness, reproduces that scope with a deferred check:
//
//   - the head (before EndCheckMarker) asserts that the spy is installed and
//     wraps the entry point so that only target calls made while the
//     solution runs are counted in _solution_target_calls;
//   - the tail (after the tests) asserts that count is positive with the
//     message of taxonomy rule (a) (§5.2): "solution did not call target API X".

// The injected code calls no builtin by name: imported definitions such as
// CodeUpdateArena's numpy.max update shadow builtins like max in the
// script's namespace.

// DeferredCheckHead returns the head of the deferred check for apiName and
// the solution's entry point, ending with [pool.EndCheckMarker].
// entry "" counts every call after the context (no attribution).
func DeferredCheckHead(apiName, entry string) string {
	var b strings.Builder
	b.WriteString("# --- target-API call check (auto-injected; deferred: the tests call the solution) ---\n")
	fmt.Fprintf(&b, "assert _target_api_spy_installed, %s\n", pyQuote("target-API spy failed to install for "+apiName))
	b.WriteString("_target_api_call_count[0] = 0\n")
	if entry == "" {
		b.WriteString("_solution_target_calls = _target_api_call_count\n")
	} else {
		b.WriteString(`_solution_target_calls = [0]


def _solution_count_calls(_f):
    def _counted(*a, **kw):
        _before = _target_api_call_count[0]
        try:
            return _f(*a, **kw)
        finally:
            _delta = _target_api_call_count[0] - _before
            if _delta > 0:
                _solution_target_calls[0] += _delta
    try:
        _counted.__wrapped__ = _f
        _counted.__name__ = _f.__name__
        _counted.__qualname__ = _f.__qualname__
    except Exception:
        pass
    return _counted


`)
		fmt.Fprintf(&b, "try:\n    %s = _solution_count_calls(%s)\nexcept NameError:\n    pass\n", entry, entry)
	}
	b.WriteString(pool.EndCheckMarker + "\n")
	return b.String()
}

// DeferredCheckTail returns the assertion that closes a deferred check.
func DeferredCheckTail(apiName string) string {
	return "# --- deferred target-API call check ---\n" +
		fmt.Sprintf("assert _solution_target_calls[0] > 0, %s\n", pyQuote("solution did not call target API "+apiName))
}

// pyQuote returns a Python string literal for s (Go's %q escapes are valid
// Python for printable ASCII and \n, \t, \", \\).
func pyQuote(s string) string { return fmt.Sprintf("%q", s) }

var (
	topDef      = regexp.MustCompile(`(?m)^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(`)
	firstCallee = regexp.MustCompile(`^\s*(?:def\s+|function\s+)?([A-Za-z_]\w*)\s*\(`)
)

// entryPoint picks the function the tests call: the name in signature when
// the solution defines it at top level, else the solution's last top-level
// function, else "".
func entryPoint(signature, solution string) string {
	var defs []string
	for _, m := range topDef.FindAllStringSubmatch(solution, -1) {
		defs = append(defs, m[1])
	}
	if m := firstCallee.FindStringSubmatch(signature); m != nil {
		for _, d := range defs {
			if d == m[1] {
				return d
			}
		}
	}
	if len(defs) > 0 {
		return defs[len(defs)-1]
	}
	return ""
}
