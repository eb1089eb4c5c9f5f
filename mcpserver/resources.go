package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
)

// Resource URIs.
const (
	LibrariesURI   = "novelapi://libraries"
	APITemplateURI = HandlePrefix + "{api_name}"
)

// registerResources adds the library list and the per-API template
// (issue 5, "Resources").
func (s *Server) registerResources() {
	s.mcp.AddResource(mcp.NewResource(LibrariesURI, "Indexed libraries",
		mcp.WithResourceDescription("Libraries and versions with novel-API documentation, with counts of new and signature-changed APIs (JSON, as list_libraries)."),
		mcp.WithMIMEType("application/json")),
		s.readLibraries)
	s.mcp.AddResourceTemplate(mcp.NewResourceTemplate(APITemplateURI, "Novel API documentation",
		mcp.WithTemplateDescription("Documentation of one novel API (signature, examples, mechanism, implementation source), as markdown. api_name is the fully qualified name, optionally with @version; search_apis returns these URIs as handles."),
		mcp.WithTemplateMIMEType("text/markdown")),
		s.readAPI)
}

func (s *Server) readLibraries(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	_, cat, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	out, _ := listLibraries(cat)
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: mustJSON(out)}}, nil
}

// readAPI serves novelapi://api/{api_name}: the full bundle rendered as
// markdown (all components), headed like get_api.
func (s *Server) readAPI(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	st, cat, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	raw := strings.TrimPrefix(req.Params.URI, HandlePrefix)
	if u, err := url.PathUnescape(raw); err == nil {
		raw = u
	}
	name, version := parseHandle(HandlePrefix + raw)
	b, _ := lookupAPI(st, cat, name, "")
	if b == nil {
		return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, notFound(cat, name, ""))
	}
	b, vc, note := atVersion(st, cat, b, version)
	var sb strings.Builder
	if note != "" {
		sb.WriteString("NOTE: " + note + "\n")
	} else if vc.Match == MatchFallback {
		sb.WriteString("NOTE: " + vc.Note() + "\n")
	}
	sb.WriteString(itemHeader(0, b, vc))
	for _, p := range renderParts(b, bundles.CompAll) {
		sb.WriteString("\n" + p.text + "\n")
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: sb.String()}}, nil
}
