package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
)

var renderParams = []param{
	{name: "api_name", kind: "string", aliases: getParams[0].aliases},
	{name: "condition", kind: "string", aliases: []string{"cond", "knowledge", "knowledge_condition", "components", "setting"}},
	{name: "max_tokens", kind: "integer", aliases: searchParams[5].aliases},
}

// DefaultRenderMaxTokens is render_condition's budget. The rendering is
// sent twice (quoted in the text, verbatim in structuredContent), so it
// gets half.
const DefaultRenderMaxTokens = MaxMaxTokens

func renderTool() mcp.Tool {
	var conds []string
	for _, c := range bundles.AllConditions() {
		conds = append(conds, string(c))
	}
	return mcp.NewTool("render_condition",
		mcp.WithDescription(`Return the exact knowledge text of one API under one of the 12 NovelAPIBench knowledge conditions: structuredContent.text is byte for byte what the benchmark puts under "# Reference Documentation:" in its prompt, and the text content quotes it in a fenced block. For prompt builders and experiments; to learn an API, use get_api instead.`),
		mcp.WithString("api_name", mcp.Required(), mcp.Description(`Fully qualified API name or handle.`)),
		mcp.WithString("condition", mcp.Required(), mcp.Enum(conds...), mcp.Description(`One of: `+strings.Join(conds, ", ")+` (enum names such as S_E are accepted too).`)),
		mcp.WithInteger("max_tokens", mcp.Description(fmt.Sprintf("Token budget (characters/4) of the answer, which carries the rendering twice; a longer rendering is cut at a line and the answer says how much was left out. Default %d; clamped to %d–%d.", DefaultRenderMaxTokens, MinMaxTokens, MaxMaxTokens))),
		annotate("Render a knowledge condition", true, false, true, false),
	)
}

// renderOut is render_condition's structuredContent.
type renderOut struct {
	APIName   string `json:"api_name"`
	Condition string `json:"condition"`
	Version   string `json:"version"`
	Text      string `json:"text"`
	Empty     bool   `json:"empty,omitempty"`
	// Truncated is set when Text was cut to the budget; OmittedChars
	// counts the characters left out of its end.
	Truncated    bool `json:"truncated,omitempty"`
	OmittedChars int  `json:"omitted_chars,omitempty"`
}

// renderOverhead bounds the tokens of render_condition's own lines and
// manifest fields besides the rendering.
const renderOverhead = 120

func (s *Server) handleRender(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := bindArgs("render_condition", req.GetArguments(), renderParams)
	if err != nil {
		return toolError(err)
	}
	rawName, err := a.requireStr("api_name", MaxQueryChars)
	if err != nil {
		return toolError(err)
	}
	condStr, err := a.requireStr("condition", 40)
	if err != nil {
		return toolError(err)
	}
	cond, err := bundles.ParseCondition(condStr)
	if err != nil {
		return mcp.NewToolResultError("render_condition: " + err.Error()), nil
	}
	budget, err := a.integer("max_tokens", DefaultRenderMaxTokens)
	if err != nil {
		return toolError(err)
	}
	budget = min(max(budget, MinMaxTokens), MaxMaxTokens)
	st, cat, res := s.storeResult(ctx)
	if res != nil {
		return res, nil
	}
	// Names resolve as in get_api: an alias, a short name or a public
	// instance's name (scipy.stats.triang) finds the bundle; the manifest's
	// api_name says which one was rendered.
	name, _, _ := parseHandle(rawName)
	b, _, msg, err := resolveAPI(ctx, st, cat, "render_condition", name, "")
	if err != nil {
		return nil, err
	}
	if b == nil {
		return mcp.NewToolResultError(msg), nil
	}
	text := bundles.Render(b, cond)
	out := renderOut{APIName: b.APIName, Condition: string(cond), Version: bundleVersion(b), Empty: text == ""}
	full := utf8.RuneCountInString(text)
	if room := (budget/2 - renderOverhead) * 4; full > room {
		text = cutText(text, room)
		out.Truncated, out.OmittedChars = true, full-utf8.RuneCountInString(text)
	}
	out.Text = text
	// structuredContent.text is the rendering itself, nothing added, for
	// a prompt builder to use verbatim; the text content, which an agent
	// reads, quotes it as bundle text (docs/serving.md §6).
	head := fmt.Sprintf("render_condition: %s %s under condition %s, %d characters, verbatim in structuredContent.text.\n",
		oneLine(b.APIName), oneLine(dash(bundleVersion(b))), cond, full)
	if out.Truncated {
		head += fmt.Sprintf("NOTE: CUT to fit max_tokens=%d: the last %d of %d characters are left out (get_api serves each component with its own budget).\n",
			budget, out.OmittedChars, full)
	}
	content := head + "(empty: the bundle has none of this condition's components)"
	if text != "" {
		content = head + "Bundle text:\n" + quoteBlock(text)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(content)}, StructuredContent: out}, nil
}
