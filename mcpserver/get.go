package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/project"
)

var getParams = []param{
	{name: "api_name", kind: "string", aliases: []string{"name", "api", "symbol", "qualname", "fully_qualified_name", "function", "id", "handle", "uri", "libraryId", "query"}},
	{name: "components", kind: "strings", aliases: searchParams[3].aliases},
	{name: "version", kind: "string", aliases: searchParams[2].aliases},
	{name: "library", kind: "string", aliases: searchParams[1].aliases},
	{name: "max_tokens", kind: "integer", aliases: searchParams[5].aliases},
	projectParam,
	sourceParam,
}

// DefaultGetMaxTokens is get_api's budget: larger than search's, since the
// agent asked for one API, still well under the 25k client cap.
const DefaultGetMaxTokens = 8000

func getTool() mcp.Tool {
	return mcp.NewTool("get_api",
		mcp.WithDescription(`Fetch the documentation of one novel Python API by name or by a handle from search_apis. Accepts any valid import path of the object (e.g. a re-export such as "numpy.unstack" vs its defining module) and the short spellings search_apis matches exactly ("np.unique_counts", "DataFrame.map", a bare leaf); a short name that several APIs share returns their handles to pick from. Returns the requested components (default S signature + E examples; M mechanism and C implementation source on request), the version served and whether it matched your version, the previous signature if it changed, all valid import paths, and provenance. An unknown name returns the nearest known names.`),
		mcp.WithString("api_name", mcp.Required(), mcp.Description(`Fully qualified name ("numpy.unstack", "pandas.Series.case_when"), a short spelling ("np.unstack", "Series.case_when") or a handle ("novelapi://api/numpy.unstack@2.2.4" or "numpy.unstack@2.2.4").`)),
		mcp.WithArray("components", mcp.Description(`Parts to return, any of S, E, M, C (or S_name, S_param, Full). Default ["S","E"]. Ask for C to see the implementation source.`),
			mcp.WithStringEnumItems([]string{"S", "S_name", "S_param", "E", "M", "C", "Full"})),
		mcp.WithString("version", mcp.Description(`Library version you target (exact, prefix, "2.x" or PEP 440 specifier). Omit for the latest indexed. If unavailable the answer says so, lists the available versions and labels what it serves as FALLBACK.`)),
		mcp.WithString("library", mcp.Description(`Optional library name, to resolve a bare leaf name ("unstack" with library "numpy").`)),
		mcp.WithInteger("max_tokens", mcp.Description(fmt.Sprintf("Token budget (characters/4). Default %d; clamped to %d–%d.", DefaultGetMaxTokens, MinMaxTokens, MaxMaxTokens))),
		mcp.WithString("project", mcp.Description(projectDescription)),
		mcp.WithString("source", mcp.Description(sourceDescription)),
		annotate("Get one novel API", true, false, true, false),
	)
}

// getOut is get_api's structuredContent.
type getOut struct {
	APIName      string        `json:"api_name"`
	Requested    string        `json:"requested_name,omitempty"` // when it differs from api_name
	ResolvedVia  string        `json:"resolved_via"`             // "name", "alias", "case", "library+leaf", "instance", "exact-name"
	Library      string        `json:"library"`
	Version      versionChoice `json:"version"`
	Novelty      string        `json:"novelty"`
	OldSignature *string       `json:"old_signature,omitempty"`
	ImportPaths  []string      `json:"import_paths"`
	// Instances are the public instances to call for this class or its
	// method ("scipy.stats.triang" for triang_gen), shortest first.
	Instances  []string   `json:"instances,omitempty"`
	Handle     string     `json:"handle"`
	Components string     `json:"components"`
	Missing    string     `json:"missing,omitempty"`
	Truncated  bool       `json:"truncated,omitempty"`
	Provenance provenance `json:"provenance"`
	Tokens     int        `json:"tokens"`
}

func (s *Server) handleGet(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := bindArgs("get_api", req.GetArguments(), getParams)
	if err != nil {
		return toolError(err)
	}
	rawName, err := a.requireStr("api_name", MaxQueryChars)
	if err != nil {
		return toolError(err)
	}
	version, err := a.str("version", 200)
	if err != nil {
		return toolError(err)
	}
	if err := checkVersion("get_api", version); err != nil {
		return toolError(err)
	}
	library, err := a.str("library", 200)
	if err != nil {
		return toolError(err)
	}
	projectDir, err := a.str("project", 4096)
	if err != nil {
		return toolError(err)
	}
	source, err := a.str("source", 4096)
	if err != nil {
		return toolError(err)
	}
	list, err := a.strs("components", 16)
	if err != nil {
		return toolError(err)
	}
	comps, err := parseComponentList("get_api", list, bundles.CompS|bundles.CompE)
	if err != nil {
		return toolError(err)
	}
	budget, err := a.integer("max_tokens", DefaultGetMaxTokens)
	if err != nil {
		return toolError(err)
	}
	var notes []string
	if budget < MinMaxTokens || budget > MaxMaxTokens {
		c := min(max(budget, MinMaxTokens), MaxMaxTokens)
		notes = append(notes, fmt.Sprintf("max_tokens=%d clamped to %d", budget, c))
		budget = c
	}
	st, cat, res := s.storeResult(ctx)
	if res != nil {
		return res, nil
	}

	name, pinned, pinnedSource := parseHandle(rawName)
	source = cmp.Or(source, pinnedSource)
	if version == "" {
		if err := checkVersion("get_api", pinned); err != nil {
			return toolError(err)
		}
		version = pinned
	}
	proj, projNote, err := s.readProject("get_api", projectDir, version)
	if err != nil {
		return toolError(err)
	}
	if projNote != "" {
		notes = append(notes, projNote)
	}
	b, via, msg, err := resolveAPI(ctx, st, cat, "get_api", name, library)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return mcp.NewToolResultError(msg), nil
	}

	b, vc, note := atVersion(st, cat, b, version, source, proj)
	if b == nil {
		return mcp.NewToolResultError(note), nil
	}
	// A FALLBACK note says everything about the version; a side-by-side
	// note names the other sources after the version's own note.
	if fellBack := strings.Contains(note, "FALLBACK"); !fellBack && (vc.Match == MatchFallback || vc.From != "") {
		notes = append(notes, vc.Note())
	} else if !fellBack && proj != nil && version == "" {
		notes = append(notes, fmt.Sprintf("the project %s does not declare %s (read: %s); the latest indexed version is served", proj.Dir, b.Library, filesRead(proj)))
	}
	if note != "" {
		notes = append(notes, note)
	}
	notes = append(notes, projectNotes(proj, cat, []string{b.Library})...)
	out := getOut{APIName: b.APIName, ResolvedVia: via, Library: b.Library, Version: vc, Novelty: novelty(b),
		ImportPaths: b.Names(), Instances: b.PublicInstances(), Handle: handleFrom(b, vc), Provenance: provenanceOf(b)}
	if b.IsModified {
		out.OldSignature = b.OldSignature
	}
	if name != b.APIName {
		out.Requested = name
		api := oneLine(b.APIName)
		switch via {
		case "alias":
			notes = append(notes, fmt.Sprintf("%s is another import path of %s (the same object)", oneLine(name), api))
		case "exact-name":
			notes = append(notes, fmt.Sprintf("%q resolved to %s, the only novel API indexed under that name", name, api))
		case "instance":
			notes = append(notes, fmt.Sprintf("%s is a public instance of %s, the class it documents", oneLine(name), api))
		default:
			notes = append(notes, fmt.Sprintf("%q resolved to %s", name, api))
		}
	}
	parts := renderParts(b, comps)
	out.Missing = strings.Join(missingParts(b, comps, parts), "+")
	if out.Missing != "" {
		notes = append(notes, fmt.Sprintf("this bundle has no %s component", out.Missing))
	}
	var intro strings.Builder
	for _, n := range notes {
		intro.WriteString("NOTE: " + oneLine(n) + "\n")
	}
	item := packItem{name: b.APIName, header: itemHeader(0, b, vc), parts: parts}
	full := out
	text, total := fitAnswer(budget, func(textBudget int) (string, any) {
		p := pack(intro.String(), []packItem{item}, textBudget)
		out.Components, out.Truncated = codes(p.partsShown[0]), p.truncated[0]
		// When the header had to be cut, so do its long fields in the
		// manifest, or they alone can exceed the budget.
		out.OldSignature, out.ImportPaths = full.OldSignature, full.ImportPaths
		if p.headerCut[0] || p.prevSigCut[0] {
			out.OldSignature = nil
		}
		if p.headerCut[0] {
			out.ImportPaths = out.ImportPaths[:min(len(out.ImportPaths), headerKeep)]
		}
		return p.text, out
	})
	out.Tokens = total
	return mcp.NewToolResultStructured(out, text), nil
}

// lookupAPI finds a bundle by name, alias, case-insensitive name, or
// library + leaf name. via says how.
func lookupAPI(st Store, cat *catalog, name, library string) (*bundles.Bundle, string) {
	if b, ok := st.Bundle(name, ""); ok {
		if b.APIName == name {
			return b, "name"
		}
		return b, "alias"
	}
	for _, n := range cat.allNames {
		if strings.EqualFold(n, name) {
			if b, ok := st.Bundle(n, ""); ok {
				return b, "case"
			}
		}
	}
	if library != "" {
		if lib, ok := cat.library(library); ok {
			leaf := bundles.LeafName(name)
			var found []string
			for _, n := range cat.names {
				if bundles.LeafName(n) == leaf && (bundles.TopLevel(n) == lib || strings.HasPrefix(n, lib+".")) {
					found = append(found, n)
				}
			}
			if len(found) == 1 {
				if b, ok := st.Bundle(found[0], ""); ok {
					return b, "library+leaf"
				}
			}
		}
	}
	return nil, ""
}

// resolveAPI finds the API name designates: by its own name or alias
// (lookupAPI); else as exactly one API's public instance (Provenance.Instances,
// case-sensitive: "scipy.stats.uniform" is uniform_gen's instance, not the
// class scipy.stats.Uniform that lookupAPI's case-insensitive match finds;
// via "instance"); else by lookupAPI's looser matches; else by search_apis'
// exact-name rule (exactNames; via "exact-name"). b is nil when name
// designates no API or several, and msg then says so as tool's answer: the
// nearest names (notFound) or the candidates' handles (ambiguous). err is
// set only when the lookup itself failed.
func resolveAPI(ctx context.Context, st Store, cat *catalog, tool, name, library string) (b *bundles.Bundle, via, msg string, err error) {
	b, via = lookupAPI(st, cat, name, library)
	if b != nil && slices.Contains(b.Names(), name) {
		return b, via, "", nil
	}
	names, err := exactNames(ctx, st, cat, name, library)
	if err != nil {
		return nil, "", "", fmt.Errorf("%s: look up %q: %w", tool, name, err)
	}
	for _, n := range names {
		if ib, ok := st.Bundle(n, ""); ok && slices.Contains(ib.PublicInstances(), name) {
			return ib, "instance", "", nil
		}
	}
	if b != nil {
		return b, via, "", nil
	}
	switch len(names) {
	case 0:
	case 1:
		if b, ok := st.Bundle(names[0], ""); ok {
			return b, "exact-name", "", nil
		}
	default:
		return nil, "", ambiguous(tool, st, name, library, names), nil
	}
	return nil, "", notFound(tool, cat, name, library), nil
}

// identifier matches a dotted Python name ("numpy.unstack", "DataFrame.map",
// "np.unique_counts", "unstack").
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// exactNames returns the canonical names of the APIs that name designates
// under search_apis' exact-name rule (the index's name table: a qualified
// name or alias, also spelt with the np, pd or sp import alias; a dotted
// suffix such as "DataFrame.map"; a bare leaf), best first, restricted to
// library when it names an indexed one. Only a single identifier is looked
// up, since the rule also picks names out of sentences. It returns an error
// only when the search itself failed.
func exactNames(ctx context.Context, st Store, cat *catalog, name, library string) ([]string, error) {
	if !identifier.MatchString(name) {
		return nil, nil
	}
	q := SearchQuery{Text: name, K: index.MaxK} // exact hits rank first
	if library != "" {
		if lib, ok := cat.library(library); ok {
			q.Library = lib
		}
	}
	hits, err := st.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, h := range hits {
		if h.Exact && !slices.Contains(names, h.APIName) {
			names = append(names, h.APIName)
		}
	}
	return names, nil
}

// maxCandidates bounds the candidates an ambiguous-name answer lists.
const maxCandidates = 10

// ambiguous is the answer for a name that designates several APIs: their
// handles, and a request to pick one. tool names the tool the message
// answers.
func ambiguous(tool string, st Store, name, library string, names []string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: %q names %d novel APIs", tool, name, len(names))
	if library != "" {
		fmt.Fprintf(&sb, " in %s", library)
	}
	sb.WriteString("; call get_api again with the full name or handle of the one you mean:\n")
	for _, n := range names[:min(len(names), maxCandidates)] {
		h := HandlePrefix + n
		if b, ok := st.Bundle(n, ""); ok {
			h = handleOf(b)
		}
		fmt.Fprintf(&sb, "- %s  %s\n", oneLine(n), oneLine(h))
	}
	if len(names) > maxCandidates {
		fmt.Fprintf(&sb, "(and %d more; give library or a longer name to narrow it)\n", len(names)-maxCandidates)
	}
	return sb.String()
}

// notFound is the near-miss answer for an unknown API (scenario T6); tool
// names the tool (or request) the message answers.
func notFound(tool string, cat *catalog, name, library string) string {
	cands := cat.allNames
	if library != "" {
		if lib, ok := cat.library(library); ok {
			cands = slices.DeleteFunc(slices.Clone(cands), func(n string) bool { return !strings.HasPrefix(n, lib+".") && bundles.TopLevel(n) != lib })
		}
	}
	msg := fmt.Sprintf("%s: no novel API named %q in this index.", tool, name)
	if near := index.NearestNames(name, cands, 5); len(near) > 0 {
		msg += " Did you mean: " + strings.Join(oneLines(near), ", ") + "?"
	} else {
		msg += " No similar names either; it may not be a novel API (then your own knowledge applies), or try search_apis with a description."
	}
	return msg
}

// atVersion resolves the requested version against b's library and returns
// the bundle to serve and the choice. When the library is indexed from
// several sources and none is asked for (source ""), the first of
// chooseSources (a private library before a Debian one) is served and note
// names the others. When the chosen library version lacks this API (it is
// newer), the API's own latest version is served as a labelled fallback and
// note explains it.
func atVersion(st Store, cat *catalog, b *bundles.Bundle, version, source string, proj *project.Project) (*bundles.Bundle, versionChoice, string) {
	vcs := chooseSources(cat, b.Library, version, source, proj)
	if len(vcs) == 0 {
		return nil, versionChoice{}, fmt.Sprintf("get_api: library %s has no bundles from source %q; its sources: %s", b.Library, source, strings.Join(cat.labels[b.Library], ", "))
	}
	vc := vcs[0]
	from := cmp.Or(source, vc.Source)
	var also []string
	for _, o := range vcs[1:] {
		if ob, ok := st.BundleFrom(b.APIName, o.Served, o.Source); ok {
			also = append(also, fmt.Sprintf("%s %s (handle %s)", index.SourceOf(ob), o.Served, handleFrom(ob, o)))
		}
	}
	sideNote := ""
	if len(also) > 0 {
		sideNote = fmt.Sprintf("%s is also indexed from %s: call get_api with that handle, or with its source, for it", b.APIName, strings.Join(also, ", "))
	}
	if bb, ok := st.BundleFrom(b.APIName, vc.Served, from); ok {
		return bb, vc, sideNote
	}
	own, ok := st.BundleFrom(b.APIName, "", from)
	if !ok && source != "" {
		// The library has bundles of that source, this API none: never
		// serve another source's bundle under it (docs/private.md §4).
		return nil, versionChoice{}, fmt.Sprintf("get_api: library %s has no bundle %s from source %s; its sources: %s",
			b.Library, oneLine(b.APIName), truncate(oneLine(source), 200), strings.Join(cat.labels[b.APIName], ", "))
	}
	if !ok {
		own = b
	}
	mine := pyversion.Sort(cat.apiVers[b.APIName])
	if vc.Match == MatchFallback {
		vc.Served = bundleVersion(own)
		return own, vc, sideNote
	}
	why := ""
	if n := vc.Note(); n != "" {
		why = " (" + n + ")"
	}
	note := oneLine(fmt.Sprintf("%s does not exist in %s %s%s; it is indexed for %s only, served below as a FALLBACK",
		b.APIName, b.Library, vc.Served, why, strings.Join(mine, ", ")))
	return own, versionChoice{Requested: vc.Requested, Served: bundleVersion(own), Match: MatchFallback, Available: mine, From: vc.From, Declared: vc.Declared, Source: vc.Source}, note
}
