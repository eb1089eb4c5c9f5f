package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

func listTool() mcp.Tool {
	return mcp.NewTool("list_libraries",
		mcp.WithDescription(`List the Python libraries and versions this server has novel-API documentation for, with the number of APIs that are new and whose signature changed in each version, and the version each was compared against. Use it to learn what search_apis and get_api can answer.`),
		annotate("List libraries", true, false, true, false),
	)
}

// listOut is list_libraries' structuredContent.
type listOut struct {
	Libraries []libInfo `json:"libraries"`
	APIs      int       `json:"apis"`
}

func (s *Server) handleList(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, err := bindArgs("list_libraries", req.GetArguments(), nil); err != nil {
		return toolError(err)
	}
	_, cat, res := s.storeResult(ctx)
	if res != nil {
		return res, nil
	}
	out, text := listLibraries(cat)
	return mcp.NewToolResultStructured(out, text), nil
}

// listLibraries renders the catalog's libraries as a manifest and a table.
func listLibraries(cat *catalog) (listOut, string) {
	out := listOut{Libraries: []libInfo{}, APIs: len(cat.names)}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d novel APIs in %d libraries.\n\n", len(cat.names), len(cat.libKeys))
	sb.WriteString("| library | version | compared with | new | signature changed | environment |\n|---|---|---|---|---|---|\n")
	for _, k := range cat.libKeys {
		li := cat.libs[k]
		out.Libraries = append(out.Libraries, *li)
		for _, v := range li.Versions {
			ver := v.Version
			if ver == "" {
				ver = "(unversioned)"
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %d | %d | %s |\n", k, ver, dash(v.OldVersion), v.New, v.Modified, dash(v.Environment))
		}
	}
	return out, sb.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
