package private

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// WheelTags are the compatibility tags of a wheel's file name
// ({name}-{version}(-{build})?-{python}-{abi}-{platform}.whl, the binary
// distribution format), each a compressed tag set split at '.'.
type WheelTags struct {
	Python, ABI, Platform []string
}

// String joins the tags as the file name writes them ("py3-none-any").
func (t *WheelTags) String() string {
	return strings.Join(t.Python, ".") + "-" + strings.Join(t.ABI, ".") + "-" + strings.Join(t.Platform, ".")
}

// ParseWheelName reads the tags of a wheel file name.
func ParseWheelName(name string) (*WheelTags, error) {
	parts := strings.Split(strings.TrimSuffix(name, ".whl"), "-")
	if len(parts) != 5 && len(parts) != 6 {
		return nil, fmt.Errorf("wheel file name %q: want NAME-VERSION(-BUILD)-PYTHON-ABI-PLATFORM.whl", name)
	}
	n := len(parts)
	return &WheelTags{Python: strings.Split(parts[n-3], "."), ABI: strings.Split(parts[n-2], "."),
		Platform: strings.Split(parts[n-1], ".")}, nil
}

// Pure reports whether the wheel has no compiled part (ABI none,
// platform any).
func (t *WheelTags) Pure() bool {
	return len(t.ABI) == 1 && t.ABI[0] == "none" && len(t.Platform) == 1 && t.Platform[0] == "any"
}

// Compatible returns nil when the wheel installs into a Linux environment
// whose CPython is python ("3.13.5") on machine ("x86_64"), and otherwise
// an error saying what the wheel is for.
func (t *WheelTags) Compatible(python, machine string) error {
	major, minor := pyMajorMinor(python)
	pyOK := false
	for _, p := range t.Python {
		impl, ver := p[:min(2, len(p))], p[min(2, len(p)):]
		if impl != "py" && impl != "cp" {
			continue
		}
		if ver == "3" || ver == "" {
			pyOK = pyOK || impl == "py"
			continue
		}
		if len(ver) >= 2 && ver[0] == '3' {
			m, err := strconv.Atoi(ver[1:])
			if err != nil || major != 3 {
				continue
			}
			// A pure wheel for an older 3.x runs on a newer one; compiled
			// code is for its exact version unless it uses the stable ABI.
			if m == minor || (m < minor && (t.Pure() || slices.Contains(t.ABI, "abi3") || impl == "py")) {
				pyOK = true
			}
		}
	}
	if !pyOK {
		return fmt.Errorf("wheel tags %s are for another Python: the environment has CPython %s", t, python)
	}
	if t.Pure() {
		return nil
	}
	abiOK := false
	for _, a := range t.ABI {
		if a == "none" || a == "abi3" || a == fmt.Sprintf("cp%d%d", major, minor) {
			abiOK = true
		}
	}
	platOK := false
	for _, p := range t.Platform {
		if p == "any" || strings.HasSuffix(p, "_"+machine) && (strings.HasPrefix(p, "linux_") || strings.HasPrefix(p, "manylinux")) {
			platOK = true
		}
	}
	if !abiOK || !platOK {
		return fmt.Errorf("wheel tags %s hold compiled code for another interpreter or platform: the environment has CPython %s on Linux %s", t, python, machine)
	}
	return nil
}

// pyMajorMinor splits "3.13.5" into 3, 13.
func pyMajorMinor(v string) (int, int) {
	parts := strings.SplitN(v, ".", 3)
	major, _ := strconv.Atoi(parts[0])
	minor := 0
	if len(parts) > 1 {
		minor, _ = strconv.Atoi(parts[1])
	}
	return major, minor
}
