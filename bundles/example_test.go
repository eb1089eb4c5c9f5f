package bundles_test

import (
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

func TestStripExampleOutputs(t *testing.T) {
	code := "import numpy as np\nnp.unstack(arr)\n# -> (array([1, 2]),\n#     array([3, 4]))\n#    more output\n# a comment\nx = 1\n# -> 1"
	want := "import numpy as np\nnp.unstack(arr)\n# a comment\nx = 1"
	if got := bundles.StripExampleOutputs(code); got != want {
		t.Errorf("StripExampleOutputs =\n%q\nwant\n%q", got, want)
	}
}
