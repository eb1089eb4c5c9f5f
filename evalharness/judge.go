package evalharness

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/pool"
)

// JudgeConfig configures the optional LLM judge of docs/protocol.md §5.2, reached
// through an OpenAI-compatible endpoint.
type JudgeConfig struct {
	// Client talks to the endpoint (required).
	Client *llm.Client
	// MaxTokens is the completion token budget; 0 means 200 + 4096 (§5.2).
	MaxTokens int
}

// judgeFields are the prompt's AST-derived fields, computed by the runner
// in the sandbox with Python's ast (§5.2, §9.1).
type judgeFields struct {
	ReferenceCall string `json:"reference_call"`
	APICalledLeaf string `json:"api_called_leaf"`
	Kwargs        string `json:"kwargs"`
}

const judgeSystem = `You classify why a generated Python completion failed to use a target library API correctly. ` +
	`Answer with compact JSON only: {"class": "W_API" | "W_PARAM" | "W_SHAPE_DTYPE" | "W_LOGIC", "rationale": "<one sentence>"}.`

// judgePrompt builds the §5.2 user prompt.
func judgePrompt(f *failureFacts, jf judgeFields) string {
	or := func(s, alt string) string {
		if strings.TrimSpace(s) == "" {
			return alt
		}
		return s
	}
	code := "<empty>"
	if strings.TrimSpace(f.Code) != "" {
		code = "```python\n" + truncateRunes(f.Code, 1200) + "\n```"
	}
	undefined := "<none>"
	if m := nameErrorRE.FindStringSubmatch(f.Stderr); m != nil {
		undefined = m[1]
	}
	stderr := or(errorSnippet(f.Stderr), "<empty>")
	if f.TimedOut {
		stderr = "<no stderr (timeout)>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Task description:\n%s\n\n", truncateRunes(f.Task.Description, 400))
	fmt.Fprintf(&b, "Target API: %s\n", or(f.Task.APIName, "<none>"))
	fmt.Fprintf(&b, "Reference call: %s\n\n", or(jf.ReferenceCall, "<unknown>"))
	fmt.Fprintf(&b, "Predicted code:\n%s\n\n", code)
	fmt.Fprintf(&b, "AST-extracted: api_called_leaf=%s kwargs=%s\n", or(jf.APICalledLeaf, "<none>"), or(jf.Kwargs, "{}"))
	fmt.Fprintf(&b, "Exception type: %s\n", or(f.ExcType, "<none>"))
	fmt.Fprintf(&b, "Undefined symbol: %s\n", undefined)
	fmt.Fprintf(&b, "Stderr (last 500 chars):\n%s\n\n", stderr)
	b.WriteString(`Rules, in order; pick the first that matches:
1. W_API: the code never calls the target leaf; calls a different leaf; calls the same leaf but the traceback points into a different package; uses a non-existent attribute; NameError only for target-related names; ModuleNotFoundError; SyntaxError or IndentationError; an empty stub.
2. W_PARAM: a TypeError or a wrong literal type at the target's call site (a TypeError from a callback passed as a keyword is W_LOGIC).
3. W_SHAPE_DTYPE: the exception originates inside the target while it checks the structure of its input (array, dataframe or response schema).
4. W_LOGIC: assertion failures, callback or hook contracts, control flow, runaway-loop timeouts, misuse of the return value on later lines, hallucinated files, side effects after the call.
Choose exactly one class. W_PARAM and W_SHAPE_DTYPE require the target to have been called; an assertion failure alone is never W_PARAM.`)
	return b.String()
}

var judgeJSONRE = regexp.MustCompile(`(?s)\{.*\}`)

// parseJudge reads the judge's answer: the first {...} (greedy) as JSON
// with a known class (§5.2).
func parseJudge(text string) (class, rationale string, ok bool) {
	m := judgeJSONRE.FindString(text)
	if m == "" {
		return "", "", false
	}
	var v struct {
		Class     string `json:"class"`
		Rationale string `json:"rationale"`
	}
	if err := json.Unmarshal([]byte(m), &v); err != nil {
		return "", "", false
	}
	switch v.Class {
	case "W_API", "W_PARAM", "W_SHAPE_DTYPE", "W_LOGIC":
		return v.Class, clip(v.Rationale), true
	}
	return "", "", false
}

// judge asks the configured model; ok is false when the call or its answer
// failed, and the caller falls back (§5.2).
func (h *Harness) judge(ctx context.Context, f *failureFacts, jf judgeFields) (classification, bool, string) {
	jc := h.cfg.Judge
	if jc == nil || jc.Client == nil {
		return classification{}, false, "no judge configured"
	}
	maxTok := jc.MaxTokens
	if maxTok <= 0 {
		maxTok = 200 + 4096
	}
	resp, err := jc.Client.Chat(ctx, llm.Request{
		Messages:  []llm.Message{{Role: "system", Content: judgeSystem}, {Role: "user", Content: judgePrompt(f, jf)}},
		MaxTokens: maxTok,
	})
	if err != nil {
		h.log.Warn("failure judge unavailable, using the fallback", "task", f.Task.TaskID, "err", err)
		return classification{}, false, "judge error"
	}
	if len(resp.Texts) == 0 {
		return classification{}, false, "judge returned nothing"
	}
	class, rat, ok := parseJudge(resp.Texts[0])
	if !ok {
		return classification{}, false, "judge answer unusable"
	}
	switch class {
	case "W_PARAM":
		return classification{Label: pool.LabelWrongParam, Rule: "judge", Rationale: rat}, true, ""
	case "W_SHAPE_DTYPE":
		return classification{Label: pool.LabelWrongShapeDtype, Rule: "judge", Rationale: rat}, true, ""
	case "W_LOGIC":
		return classification{Label: pool.LabelWrongLogic, Rule: "judge", Rationale: rat}, true, ""
	}
	leaf := f.Task.Leaf()
	return classification{Label: subclassifyAPI(f.ExcType, rat, leaf, targetMentioned(f.Code, leaf)), Rule: "judge", Rationale: rat}, true, ""
}
