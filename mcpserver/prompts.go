package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// PromptName is the prompt that teaches an agent the tools.
const PromptName = "use_novel_api"

func (s *Server) registerPrompts() {
	desc := "Write code that uses a recent (novel) Python API correctly: look it up, write the code, verify it in a sandbox."
	if s.cfg.Harness == nil {
		desc = "Write code that uses a recent (novel) Python API correctly: look it up, then write the code."
	}
	s.mcp.AddPrompt(mcp.NewPrompt(PromptName,
		mcp.WithPromptDescription(desc),
		mcp.WithArgument("task", mcp.ArgumentDescription("What the code must do."), mcp.RequiredArgument()),
		mcp.WithArgument("library", mcp.ArgumentDescription("Library to use, e.g. numpy (optional).")),
		mcp.WithArgument("version", mcp.ArgumentDescription("Library version the code targets (optional).")),
	), s.getPrompt)
}

// beforeGetPrompt makes prompts/get without the required task argument an
// invalid-params error (-32602), as the MCP spec asks for missing required
// arguments, instead of an internal error. mcp-go v1.2.1 answers every
// error a prompt handler returns with -32603 (server/handler_errors.go) but
// answers an unknown prompt name with -32602, so the hook renames such a
// request to a name that carries the reason; the error message then reads
// "prompt 'use_novel_api: argument "task" is required ...' not found".
func (s *Server) beforeGetPrompt(_ context.Context, _ any, req *mcp.GetPromptRequest) {
	if req.Params.Name != PromptName {
		return
	}
	if strings.TrimSpace(req.Params.Arguments["task"]) == "" {
		req.Params.Name = PromptName + `: argument "task" is required (what the code must do); library and version are optional`
	}
}

func (s *Server) getPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	task := strings.TrimSpace(req.Params.Arguments["task"])
	if task == "" {
		return nil, fmt.Errorf("%w: argument \"task\" is required", mcp.ErrInvalidParams)
	}
	lib := strings.TrimSpace(req.Params.Arguments["library"])
	ver := strings.TrimSpace(req.Params.Arguments["version"])
	return mcp.NewGetPromptResult("Use a novel Python API with novelapi's tools",
		[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(promptText(task, lib, ver, s.cfg.Harness != nil)))}), nil
}

// promptText is the body of the use_novel_api prompt; exec says whether
// the server offers check_code.
func promptText(task, lib, ver string, exec bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Task: %s\n", task)
	target := "the library"
	if lib != "" {
		target = lib
		if ver != "" {
			target += " " + ver
		}
		fmt.Fprintf(&sb, "Library: %s\n", target)
	}
	sb.WriteString(`
Recent library releases add APIs and change signatures that your training data may not know. Before you write code:

1. Call search_apis with the task in words (and library`)
	if lib != "" {
		fmt.Fprintf(&sb, "=%q", lib)
	}
	if ver != "" {
		fmt.Fprintf(&sb, ", version=%q", ver)
	}
	sb.WriteString(`). Read the signature (S) and examples (E) it returns. Check the "version" line of each result: a FALLBACK label means the documentation is for another version than the one you target.
2. If the best result is truncated or you need more, call get_api with its handle; ask for components ["M"] (mechanism) or ["C"] (implementation source) only when S and E leave a question open.
3. Write the code using exactly the parameter names and import paths shown. Do not guess parameters that the signature does not list.
`)
	if exec {
		sb.WriteString(`4. Call check_code with a complete, self-contained script (imports and small inline data) and the api_name. If it did not run or did not call the target, fix the code using the exception and label, and check again (at most 3 attempts).
5. Answer with the verified code.`)
	} else {
		sb.WriteString(`4. Answer with the code. This server does not run code, so say that it was not run.`)
	}
	sb.WriteString(` If search_apis finds nothing, the API is probably not novel: use your own knowledge, and say so.
`)
	return sb.String()
}
