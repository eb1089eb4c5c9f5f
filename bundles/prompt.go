package bundles

import "strings"

// A PromptInput is the part of a task the evaluation prompt shows
// (docs/protocol.md §1.3, §2.3). It is a view of evalharness's task,
// kept here so that bundles need not import evalharness. Its JSON tags are
// those of tasks.jsonl, so a task record decodes into it directly.
type PromptInput struct {
	TaskID      string `json:"task_id,omitempty"`  // not shown; for selecting a task
	APIName     string `json:"api_name,omitempty"` // not shown; the target API
	Description string `json:"description"`        // never contains the API's leaf name
	ContextCode string `json:"context_code"`       // imports and fixtures shown before the gap; may be ""
}

// CompletionInstruction is the prompt's final line (COMPLETION_INSTRUCTION,
// docs/protocol.md §2.3), also used by code extraction (§3). It has no
// trailing newline.
const CompletionInstruction = "# Complete the following code (output only the missing lines, no explanation):"

// selfContainedBlock is the 4-line instruction comment of the evaluation
// prompt (§2.3), without a trailing newline.
const selfContainedBlock = "# Output a self-contained completion for the missing region. If `context_code`\n" +
	"# does not already provide a required import, define a needed name, or set up\n" +
	"# required state, include the missing lines in your completion.\n" +
	"#"

// Prompt returns the evaluation prompt for task with the given rendered
// knowledge (from [Render]); it is sent as the single user message, through
// the backbone's chat template with no system message of ours
// (docs/protocol.md §2.3). The text is
//
//	# Reference Documentation:\n{knowledge}\n\n---\n\n        (only if knowledge != "")
//	{context_code}\n\n# Task:\n{description}\n\n
//	<4-line "Output a self-contained completion…" block>\n
//	# Complete the following code (output only the missing lines, no explanation):\n
//
// An empty context_code leaves the task part starting with a blank line.
func Prompt(task PromptInput, knowledge string) string {
	var sb strings.Builder
	if knowledge != "" {
		sb.WriteString("# Reference Documentation:\n")
		sb.WriteString(knowledge)
		sb.WriteString("\n\n---\n\n")
	}
	sb.WriteString(task.ContextCode)
	sb.WriteString("\n\n# Task:\n")
	sb.WriteString(task.Description)
	sb.WriteString("\n\n")
	sb.WriteString(selfContainedBlock)
	sb.WriteString("\n")
	sb.WriteString(CompletionInstruction)
	sb.WriteString("\n")
	return sb.String()
}

// PromptFor is Prompt(task, Render(b, c)).
func PromptFor(task PromptInput, b *Bundle, c Condition) string {
	return Prompt(task, Render(b, c))
}

// C2Prompt returns the construction pipeline's C2 (novelty) prompt: the
// no-knowledge prompt without the 4-line self-contained block
// (docs/protocol.md §2.3):
// "{context_code}\n\n# Task:\n{description}\n\n" + CompletionInstruction + "\n".
func C2Prompt(task PromptInput) string {
	return task.ContextCode + "\n\n# Task:\n" + task.Description + "\n\n" + CompletionInstruction + "\n"
}
