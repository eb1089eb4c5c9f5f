package pipeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
)

// Each library gets only the --new-if-moved-from prefixes under its name.
func TestPrefixesOf(t *testing.T) {
	in := []string{"numpy.array_api", "scipy._lib", "numpy.array_api", "numpyx.y", "numpy"}
	if got, want := prefixesOf("numpy", in), []string{"numpy", "numpy.array_api"}; !slices.Equal(got, want) {
		t.Errorf("prefixesOf(numpy) = %v; want %v", got, want)
	}
	if got := prefixesOf("pandas", in); len(got) != 0 {
		t.Errorf("prefixesOf(pandas) = %v; want none", got)
	}
}

func TestEnvSuffix(t *testing.T) {
	wide, _ := debenv.Preset("wide")
	tests := []struct {
		name string
		libs []string
		want string
	}{
		{"Default", []string{"numpy", "scipy", "pandas"}, "sci"},
		{"Preset", wide, "wide"},
		{"Few", []string{"Django", "pydantic"}, "django-pydantic"},
		{"Many", []string{"a", "b", "c", "d", "e"}, "libs-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := envSuffix(tt.libs); !strings.HasPrefix(got, tt.want) || (tt.name != "Many" && got != tt.want) {
				t.Errorf("envSuffix(%v) = %q; want %q", tt.libs, got, tt.want)
			}
		})
	}
}
