package private_test

import (
	"slices"
	"testing"

	"github.com/novelapi/novelapi/private"
)

// Requirements as real projects declare them (cattrs', hypothesis',
// jsonschema's Requires-Dist lines in Debian's dist-info).
func TestRequirement_ParseAndApplies(t *testing.T) {
	py313 := private.Platform{Python: "3.13.5", Machine: "x86_64"}
	tests := []struct {
		line, name, spec string
		extras           []string
		applies          bool
		allows           string // a version the specifier must allow ("" skips)
	}{
		{"attrs>=24.3.0", "attrs", ">=24.3.0", nil, true, "25.3.0"},
		{"exceptiongroup>=1.1.1; python_version < '3.11'", "exceptiongroup", ">=1.1.1", nil, false, ""},
		{"typing-extensions>=4.12.2; python_version < \"3.14\"", "typing-extensions", ">=4.12.2", nil, true, "4.13.2"},
		{"tzdata; sys_platform == \"win32\"", "tzdata", "", nil, false, ""},
		{"pytest>=4.6; extra == \"test\"", "pytest", ">=4.6", nil, false, ""},
		{"rich[jupyter] (>=10.0)", "rich", ">=10.0", []string{"jupyter"}, true, "13.9.4"},
		{"importlib-metadata; python_version < '3.8' or platform_python_implementation == 'PyPy'", "importlib-metadata", "", nil, false, ""},
		{"numpy>=1.21,<3; platform_machine == 'x86_64' and python_full_version >= '3.10.1'", "numpy", ">=1.21,<3", nil, true, "2.2.4"},
	}
	for _, tt := range tests {
		r, err := private.ParseRequirement(tt.line)
		if err != nil {
			t.Errorf("ParseRequirement(%q): %v", tt.line, err)
			continue
		}
		if r.Name != tt.name || r.Specifier != tt.spec || !slices.Equal(r.Extras, tt.extras) {
			t.Errorf("ParseRequirement(%q) = %q %q %v; want %q %q %v", tt.line, r.Name, r.Specifier, r.Extras, tt.name, tt.spec, tt.extras)
		}
		if got := r.Applies(py313); got != tt.applies {
			t.Errorf("%q applies on CPython 3.13 Linux: %v, want %v", tt.line, got, tt.applies)
		}
		if tt.allows != "" && !r.Allows(tt.allows) {
			t.Errorf("%q does not allow %s", tt.line, tt.allows)
		}
	}
	if r, _ := private.ParseRequirement("attrs>=24.3.0"); r.Allows("21.4.0") {
		t.Errorf("attrs>=24.3.0 allows 21.4.0")
	}
	for _, bad := range []string{"mylib @ https://example.invalid/mylib.zip", ">=1.0", "attrs>=banana"} {
		if _, err := private.ParseRequirement(bad); err == nil {
			t.Errorf("ParseRequirement(%q) succeeded", bad)
		}
	}
}

func TestWheelTags_Compatible(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"boltons-25.0.0-py3-none-any.whl", true},
		{"six-1.16.0-py2.py3-none-any.whl", true},
		{"numpy-2.2.4-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", true},
		{"cryptography-44.0.0-cp39-abi3-manylinux_2_28_x86_64.whl", true},
		{"numpy-2.2.4-cp312-cp312-manylinux_2_17_x86_64.whl", false},
		{"numpy-2.2.4-cp313-cp313-manylinux_2_17_aarch64.whl", false},
		{"numpy-2.2.4-cp313-cp313-win_amd64.whl", false},
		{"foo-1.0-py2-none-any.whl", false},
	}
	for _, tt := range tests {
		w, err := private.ParseWheelName(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Compatible("3.13.5", "x86_64"); (err == nil) != tt.ok {
			t.Errorf("%s on CPython 3.13 x86_64: %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
