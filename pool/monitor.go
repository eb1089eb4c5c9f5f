package pool

import (
	_ "embed"
	"encoding/json"
	"strings"
)

// stockMonitor is the stock target-call monitor with the placeholder
// __NOVELAPI_TARGET__ for the target's name (docs/protocol.md §4.2).
//
//go:embed py/stock_monitor.py
var stockMonitor string

// EndCheckMarker ends the monitor check block of execution_test; the
// call-record check is spliced in after it (docs/protocol.md §4.1).
const EndCheckMarker = "# --- end check ---"

// pyStr returns a Python string literal for s (JSON string syntax is valid
// Python for every string once U+2028/2029 are escaped, which encoding/json does).
func pyStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// StockMonitor returns the stock target-call monitor for apiName: the text
// a task's test_harness.setup_code must hold (docs/protocol.md §4.2,
// §9.16). It counts calls but records nothing.
func StockMonitor(apiName string) string {
	return strings.Replace(stockMonitor, "__NOVELAPI_TARGET__", pyStr(apiName), 1)
}

// IsStockMonitor reports whether setup is a stock target-call monitor for
// apiName (docs/protocol.md §4.1 guard, §9.16): novelapi's own text
// (StockMonitor), or a monitor in the published layout, recognised by its
// state lines — exactly one `_target_api_name = '<apiName>'` assignment,
// `_target_api_call_count = [0]` and `_target_api_spy_installed = False`.
// The text is never executed either way: evaluation replaces it with the
// recording monitor.
func IsStockMonitor(setup, apiName string) bool {
	s := strings.TrimSpace(setup)
	if s == strings.TrimSpace(StockMonitor(apiName)) {
		return true
	}
	if strings.Count(s, "\n_target_api_name = ") != 1 {
		return false
	}
	named := strings.Contains(s, "\n_target_api_name = '"+apiName+"'\n") || strings.Contains(s, "\n_target_api_name = "+pyStr(apiName)+"\n")
	return named && strings.Contains(s, "\n_target_api_call_count = [0]\n") && strings.Contains(s, "\n_target_api_spy_installed = False\n")
}

// CheckBlock returns the monitor check block that starts every assertion
// layer (docs/protocol.md §4.1, layout item 1), ending with
// EndCheckMarker. Task generators prepend it to the layer-1 scenario.
func CheckBlock(apiName string) string {
	return "# --- target-API call check (auto-injected) ---\n" +
		"assert _target_api_spy_installed, " + pyStr("target-API spy failed to install for "+apiName) + "\n" +
		"assert _target_api_call_count[0] > 0, " + pyStr("solution did not call target API "+apiName) + "\n" +
		"_target_api_call_count[0] = 0\n" + EndCheckMarker + "\n"
}
