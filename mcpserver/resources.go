package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
)

// ResourceMaxTokens is the budget of an API resource (characters/4).
const ResourceMaxTokens = MaxMaxTokens

// Resource URIs.
const (
	LibrariesURI = "novelapi://libraries"
	// APITemplateURI uses reserved expansion ({+api_name}) so that a
	// handle's "@version" matches; with simple expansion mcp-go's template
	// matcher refuses "@" and handles could not be read as resources.
	APITemplateURI = HandlePrefix + "{+api_name}"
)

// registerResources adds the library list and the per-API template.
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
	st, cat, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	out, _ := listLibraries(cat, st.Info())
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: mustJSON(out)}}, nil
}

// readAPI serves novelapi://api/{api_name}: the full bundle rendered as
// markdown (all components), headed like get_api.
func (s *Server) readAPI(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	st, cat, err := s.store(ctx)
	if err != nil {
		return nil, err
	}
	b, version, source, msg, err := resolveAPIURI(ctx, st, cat, req.Params.URI)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, msg)
	}
	b, vc, note := atVersion(st, cat, b, version, source, nil)
	if b == nil {
		return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, note)
	}
	var intro string
	if note != "" {
		intro = "NOTE: " + oneLine(note) + "\n"
	} else if vc.Match == MatchFallback {
		intro = "NOTE: " + oneLine(vc.Note()) + "\n"
	}
	// Within the largest tool budget, components cut or left out named
	// as get_api does.
	p := pack(intro, []packItem{{name: b.APIName, header: itemHeader(0, b, vc), parts: renderParts(b, bundles.CompAll)}}, ResourceMaxTokens)
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: p.text}}, nil
}

// resolveAPIURI resolves a novelapi://api/{api_name}[@version][~source]
// URI to its bundle, requested version and source kind (handleFrom), by
// name or alias as get_api does, or by get_api's exact-name rule
// ("np.unstack", "DataFrame.map"). b is nil when
// the name designates no API or several, or the version is not a version,
// and msg then says why. err is set only when the lookup itself failed.
func resolveAPIURI(ctx context.Context, st Store, cat *catalog, uri string) (b *bundles.Bundle, version, source, msg string, err error) {
	raw := strings.TrimPrefix(uri, HandlePrefix)
	if u, err := url.PathUnescape(raw); err == nil {
		raw = u
	}
	name, version, source := parseHandle(HandlePrefix + raw)
	if err := checkVersion("resources/read", version); err != nil {
		return nil, "", "", err.Error(), nil
	}
	b, _, msg, err = resolveAPI(ctx, st, cat, "resources/read", name, "")
	if b == nil {
		return nil, "", "", msg, err
	}
	return b, version, source, "", nil
}

// notFoundScheme prefixes the URI a resources/read request is rewritten to
// when it names no API; no resource or template matches it.
const notFoundScheme = "novelapi-not-found:"

// beforeReadResource makes resources/read of an unknown API a
// resource-not-found error (-32002; -32602 under protocol 2026-07-28, as
// mcp-go chooses per request) instead of an internal error. mcp-go v1.2.1
// answers every error a resource handler returns with -32603
// (server/handler_errors.go), so the only way to the not-found code is the
// "no handler matches" path: the hook rewrites the URI of a request for an
// unknown API into one that no template matches, carrying the reason, which
// the error message then shows. While the index is still loading, requests
// pass unchanged and the handler answers.
func (s *Server) beforeReadResource(ctx context.Context, _ any, req *mcp.ReadResourceRequest) {
	if !strings.HasPrefix(req.Params.URI, HandlePrefix) {
		return
	}
	st, cat, err := s.store(ctx)
	if err != nil {
		return
	}
	if b, _, _, msg, err := resolveAPIURI(ctx, st, cat, req.Params.URI); b == nil && err == nil {
		req.Params.URI = notFoundScheme + " " + msg + " (" + req.Params.URI + ")"
	}
}
