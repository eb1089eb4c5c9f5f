package bundles

import "testing"

// Default reprs lose their memory addresses, so that two extractions write
// the same bundle; other text is kept.
func TestStripAddresses(t *testing.T) {
	for in, want := range map[string]string{
		"<_thread._local object at 0x7f3a2c1b9e40>":            "<_thread._local object>",
		"(x, _cache=<_thread._local object at 0x7F00AB>, n=1)": "(x, _cache=<_thread._local object>, n=1)",
		"<function f at 0x1>, <object at 0x2>":                 "<function f>, <object>",
		"meet at 0xdeadbeef street":                            "meet at 0xdeadbeef street", // not a repr
		"None":                                                 "None",
	} {
		if got := stripAddresses(&in); *got != want {
			t.Errorf("stripAddresses(%q) = %q; want %q", in, *got, want)
		}
	}
	if stripAddresses(nil) != nil {
		t.Error("stripAddresses(nil) != nil")
	}
}
