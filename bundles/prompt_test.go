package bundles_test

import (
	"path/filepath"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

var promptTask = bundles.PromptInput{
	Description: "Split the 3-D measurement array into one 2-D array per sensor (the middle axis) and report how many there are.",
	ContextCode: "import numpy as np\nreadings = np.arange(24).reshape((2, 3, 4))",
}

func TestPrompt_Golden(t *testing.T) {
	fx := loadFixture(t)
	b := fx["numpy.unstack"]
	for _, c := range []bundles.Condition{bundles.CondNone, bundles.CondS, bundles.CondSE, bundles.CondFull} {
		t.Run(string(c), func(t *testing.T) {
			checkGolden(t, filepath.Join("prompt", "numpy.unstack", string(c)+".txt"), bundles.PromptFor(promptTask, b, c))
		})
	}
	checkGolden(t, filepath.Join("prompt", "c2.txt"), bundles.C2Prompt(promptTask))
}

// TestPrompt_Protocol pins the prompt text of docs/protocol.md §2.3, written by hand.
func TestPrompt_Protocol(t *testing.T) {
	const tail = "# Output a self-contained completion for the missing region. If `context_code`\n" +
		"# does not already provide a required import, define a needed name, or set up\n" +
		"# required state, include the missing lines in your completion.\n" +
		"#\n" +
		"# Complete the following code (output only the missing lines, no explanation):\n"
	tests := []struct {
		name      string
		task      bundles.PromptInput
		knowledge string
		want      string
	}{
		{"NoKnowledge", bundles.PromptInput{Description: "Do X.", ContextCode: "import numpy as np"}, "",
			"import numpy as np\n\n# Task:\nDo X.\n\n" + tail},
		{"EmptyContext", bundles.PromptInput{Description: "Do X."}, "",
			"\n\n# Task:\nDo X.\n\n" + tail},
		{"WithKnowledge", bundles.PromptInput{Description: "Do X.", ContextCode: "import numpy as np"}, "API: numpy.unstack",
			"# Reference Documentation:\nAPI: numpy.unstack\n\n---\n\nimport numpy as np\n\n# Task:\nDo X.\n\n" + tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bundles.Prompt(tt.task, tt.knowledge); got != tt.want {
				t.Errorf("Prompt:\n%s", lineDiff(tt.want, got))
			}
		})
	}
	if got, want := bundles.C2Prompt(bundles.PromptInput{Description: "Do X.", ContextCode: "x = 1"}),
		"x = 1\n\n# Task:\nDo X.\n\n# Complete the following code (output only the missing lines, no explanation):\n"; got != want {
		t.Errorf("C2Prompt:\n%s", lineDiff(want, got))
	}
}
