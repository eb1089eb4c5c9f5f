package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

func listTool() mcp.Tool {
	return mcp.NewTool("list_libraries",
		mcp.WithDescription(`List the Python libraries and versions this server has novel-API documentation for, with the number of APIs that are new and whose signature changed in each version, the version each was compared against, and where each came from (a Debian release, or the path of a private library added with novelapi add, whose every API is served). Use it to learn what search_apis and get_api can answer.`),
		annotate("List libraries", true, false, true, false),
	)
}

// listOut is list_libraries' structuredContent.
type listOut struct {
	Libraries []libInfo `json:"libraries"`
	APIs      int       `json:"apis"`
	// Partial is set when the index build left bundles out; Skipped
	// counts them and SkippedNames names some.
	Partial      bool     `json:"partial,omitempty"`
	Skipped      int      `json:"skipped,omitempty"`
	SkippedNames []string `json:"skipped_names,omitempty"`
	Generation   string   `json:"generation,omitempty"`
}

func (s *Server) handleList(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if _, err := bindArgs("list_libraries", req.GetArguments(), nil); err != nil {
		return toolError(err)
	}
	st, cat, res := s.storeResult(ctx)
	if res != nil {
		return res, nil
	}
	out, text := listLibraries(cat, st.Info())
	return mcp.NewToolResultStructured(out, text), nil
}

// maxSkippedShown bounds the skipped names list_libraries' text shows.
const maxSkippedShown = 10

// listLibraries renders the catalog's libraries as a manifest and a table,
// saying first when the index is partial.
func listLibraries(cat *catalog, info StoreInfo) (listOut, string) {
	out := listOut{Libraries: []libInfo{}, APIs: len(cat.names), Generation: info.Generation}
	var sb strings.Builder
	if info.Skipped > 0 {
		out.Partial, out.Skipped, out.SkippedNames = true, info.Skipped, info.SkippedNames
		fmt.Fprintf(&sb, "NOTE: this index is PARTIAL: %d bundle(s) were skipped as malformed when it was built, and their APIs are missing", info.Skipped)
		if n := min(len(info.SkippedNames), maxSkippedShown); n > 0 {
			fmt.Fprintf(&sb, ": %s", strings.Join(oneLines(info.SkippedNames[:n]), ", "))
			if more := info.Skipped - n; more > 0 {
				fmt.Fprintf(&sb, " (+%d more)", more)
			}
		}
		sb.WriteString(". An API not found here may be one of them.\n\n")
	}
	fmt.Fprintf(&sb, "%d novel APIs in %d libraries.\n\n", len(cat.names), len(cat.libKeys))
	sb.WriteString("| library | version | compared with | new | signature changed | environment | source |\n|---|---|---|---|---|---|---|\n")
	for _, k := range cat.libKeys {
		li := cat.libs[k]
		out.Libraries = append(out.Libraries, *li)
		for _, v := range li.Versions {
			ver := v.Version
			if ver == "" {
				ver = "(unversioned)"
			}
			old := v.OldVersion
			if v.Private && old == "" {
				old = "(private: whole library)"
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %d | %d | %s | %s |\n", oneLine(k), oneLine(ver), oneLine(dash(old)), v.New, v.Modified,
				oneLine(dash(v.Environment)), oneLine(dash(v.Source)))
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
