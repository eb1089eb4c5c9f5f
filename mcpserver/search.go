package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/project"
)

var searchParams = []param{
	{name: "query", kind: "string", aliases: []string{"q", "question", "userQuery", "text", "search", "searchQuery", "topic", "prompt", "keywords", "task"}},
	{name: "library", kind: "string", aliases: []string{"libraryName", "lib", "libraryId", "library_id", "package", "packageName", "pkg", "module", "distribution"}},
	{name: "version", kind: "string", aliases: []string{"libraryVersion", "ver", "targetVersion", "version_spec", "versionSpec"}},
	{name: "components", kind: "strings", aliases: []string{"component", "parts", "part", "sections", "include", "fields", "kinds"}},
	{name: "k", kind: "integer", aliases: []string{"limit", "top_k", "topK", "n", "count", "max_results", "maxResults", "num_results", "results"}},
	{name: "max_tokens", kind: "integer", aliases: []string{"tokens", "maxTokens", "token_budget", "tokenBudget", "budget"}},
	projectParam,
	sourceParam,
}

func searchTool() mcp.Tool {
	return mcp.NewTool("search_apis",
		mcp.WithDescription(`Search the documentation of NOVEL Python APIs: functions and classes that were added, or whose signature changed, in recent library releases, so your training data may not know them. Use it before writing code that calls a recent API, or when unsure whether an API exists or what its parameters are.

Returns ranked APIs, each with: library, the version served and whether it matched the version you asked for (exact / range / fallback), why it is novel (new or signature changed, with the previous signature), provenance, a handle for get_api, and the requested components:
  S = signature (qualified name + parameters with types, defaults, descriptions) — ground truth from introspection
  E = runnable usage examples
  M = mechanism (what it does and how, in prose)
  C = implementation source (long; ask only when S+E are not enough)
Default components: S and E. Output fits a token budget (max_tokens, default 4000, estimated as characters/4); results that did not fit are listed by handle, fetch them with get_api. No match gives a short answer with the nearest API names; a query that is one name no novel API has starts with a NOTE saying so (its results match the words only) and the nearest names.`),
		mcp.WithString("query", mcp.Required(), mcp.Description(`What you need: an API name ("numpy.unstack", "read_csv dtype_backend") or a task in words ("split an array along an axis into a tuple"). Up to 16384 characters; beyond 2000 only the first and last 1000 are used (a pasted traceback keeps its error line).`)),
		mcp.WithString("library", mcp.Description(`Restrict to one library, by import or distribution name ("numpy", "scipy", "sklearn" or "scikit-learn"). Omit to search all; list_libraries shows what is indexed.`)),
		mcp.WithString("version", mcp.Description(`Library version you target: exact ("2.2.4", "2.0.0rc1"), prefix ("2.2"), X-range ("2.x") or PEP 440 specifier ("~=2.1", ">=1.26,<2"). Omit for the latest release indexed. If nothing matches, the latest is served and labelled FALLBACK.`)),
		mcp.WithArray("components", mcp.Description(`Which parts to return, any of S, E, M, C (or S_name, S_param, Full). Default ["S","E"].`),
			mcp.WithStringEnumItems([]string{"S", "S_name", "S_param", "E", "M", "C", "Full"})),
		mcp.WithInteger("k", mcp.Description(fmt.Sprintf("Number of APIs to return, 1–%d; default %d (also used for 0 or less; larger values are clamped to %d).", MaxK, DefaultK, MaxK))),
		mcp.WithInteger("max_tokens", mcp.Description(fmt.Sprintf("Token budget for the whole answer (characters/4). Default %d; values outside %d–%d are clamped, never rejected.", DefaultMaxTokens, MinMaxTokens, MaxMaxTokens))),
		mcp.WithString("project", mcp.Description(projectDescription)),
		mcp.WithString("source", mcp.Description(sourceDescription)),
		annotate("Search novel Python APIs", true, false, true, false),
	)
}

// searchItem is one served API in the structured manifest.
type searchItem struct {
	Rank    int    `json:"rank"`
	APIName string `json:"api_name"`
	Library string `json:"library"`
	Version string `json:"version"`
	Match   string `json:"match"`
	// Source labels where the bundle came from ("debian:trixie",
	// "private:/src/numpy"), when its library is indexed from several.
	Source string `json:"source,omitempty"`
	// From names the project file and line the version came from.
	From       string  `json:"from,omitempty"`
	Handle     string  `json:"handle"`
	Score      float64 `json:"score"`
	Components string  `json:"components"` // what was included, e.g. "S+E"
	// Instances are the public instances to call for this class or its
	// method ("scipy.stats.triang" for triang_gen), shortest first.
	Instances []string `json:"instances,omitempty"`
	Missing   string   `json:"missing,omitempty"`   // selected but absent from the bundle
	Truncated bool     `json:"truncated,omitempty"` // a component was cut to fit the budget
}

// omittedItem is a ranked API left out for the budget.
type omittedItem struct {
	APIName string `json:"api_name"`
	Handle  string `json:"handle"`
}

// searchOut is search_apis' structuredContent: the manifest of the answer.
// The text content carries the documentation itself.
type searchOut struct {
	Query   string         `json:"query"`
	Library string         `json:"library,omitempty"`
	Version *versionChoice `json:"version,omitempty"`
	// Sources holds one choice per source when the library is served from
	// several side by side (a private library named like a Debian one).
	Sources []versionChoice `json:"sources,omitempty"`
	// Project is the agent's project directory the versions came from
	// (the project argument or serve --project), "" when none.
	Project     string        `json:"project,omitempty"`
	Components  string        `json:"components"`
	MaxTokens   int           `json:"max_tokens"`
	Tokens      int           `json:"tokens"` // estimate of the whole answer, text plus this manifest
	Estimator   string        `json:"estimator"`
	Notes       []string      `json:"notes,omitempty"`
	Results     []searchItem  `json:"results"`
	Omitted     []omittedItem `json:"omitted,omitempty"`      // listed by handle
	OmittedMore int           `json:"omitted_more,omitempty"` // further results left out and not listed
	Suggestions []string      `json:"suggestions,omitempty"`  // near-miss names (no hit, or a name no API has)
	Neighbours  []string      `json:"neighbours,omitempty"`   // vector-only neighbours (no hit)
}

// searchReq is search_apis' bound arguments.
type searchReq struct {
	query, library, version string
	project                 string // the project argument
	source                  string // the source argument: "debian", "private" or a label
	proj                    *project.Project
	comps                   bundles.Components
	k, maxTokens            int
	notes                   []string
}

func parseSearch(raw map[string]any) (searchReq, error) {
	a, err := bindArgs("search_apis", raw, searchParams)
	if err != nil {
		return searchReq{}, err
	}
	var r searchReq
	if r.query, err = a.requireStr("query", MaxPastedQueryChars); err != nil {
		return r, err
	}
	if n := utf8.RuneCountInString(r.query); n > MaxQueryChars {
		r.query = cutQuery(r.query, MaxQueryChars/2)
		r.notes = append(r.notes, fmt.Sprintf("the query's %d characters were cut to its first and last %d (a task's question line and a traceback's error line are kept)", n, MaxQueryChars/2))
	}
	if r.library, err = a.str("library", 200); err != nil {
		return r, err
	}
	if r.version, err = a.str("version", 200); err != nil {
		return r, err
	}
	if err := checkVersion("search_apis", r.version); err != nil {
		return r, err
	}
	if r.project, err = a.str("project", 4096); err != nil {
		return r, err
	}
	if r.source, err = a.str("source", 4096); err != nil {
		return r, err
	}
	list, err := a.strs("components", 16)
	if err != nil {
		return r, err
	}
	if r.comps, err = parseComponentList("search_apis", list, bundles.CompS|bundles.CompE); err != nil {
		return r, err
	}
	if r.k, err = a.integer("k", DefaultK); err != nil {
		return r, err
	}
	// k ≤ 0 means the default, as `novelapi search -k` and index.Query.K
	// do; above MaxK it is clamped. Either way the answer says so.
	switch {
	case r.k <= 0:
		r.notes = append(r.notes, fmt.Sprintf("k=%d is not positive; the default k=%d is used", r.k, DefaultK))
		r.k = DefaultK
	case r.k > MaxK:
		r.notes = append(r.notes, fmt.Sprintf("k=%d clamped to %d", r.k, MaxK))
		r.k = MaxK
	}
	if r.maxTokens, err = a.integer("max_tokens", DefaultMaxTokens); err != nil {
		return r, err
	}
	if r.maxTokens < MinMaxTokens || r.maxTokens > MaxMaxTokens {
		c := min(max(r.maxTokens, MinMaxTokens), MaxMaxTokens)
		r.notes = append(r.notes, fmt.Sprintf("max_tokens=%d clamped to %d", r.maxTokens, c))
		r.maxTokens = c
	}
	return r, nil
}

func (s *Server) handleSearch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r, err := parseSearch(req.GetArguments())
	if err != nil {
		return toolError(err)
	}
	var note string
	if r.proj, note, err = s.readProject("search_apis", r.project, r.version); err != nil {
		return toolError(err)
	}
	if note != "" {
		r.notes = append(r.notes, note)
	}
	st, cat, res := s.storeResult(ctx)
	if res != nil {
		return res, nil
	}
	return s.search(ctx, st, cat, r)
}

// search runs one search_apis call on a loaded store.
func (s *Server) search(ctx context.Context, st Store, cat *catalog, r searchReq) (*mcp.CallToolResult, error) {
	out := searchOut{Query: r.query, Components: r.comps.String(), MaxTokens: r.maxTokens,
		Estimator: "ceil(characters/4) over text and this manifest", Notes: r.notes}

	q := SearchQuery{Text: r.query, K: r.k}
	choices := map[string]versionChoice{}    // per library: the first choice
	bySource := map[string][]versionChoice{} // per library: one per source served
	if r.library != "" {
		lib, ok := cat.library(r.library)
		if !ok {
			msg := fmt.Sprintf("search_apis: no library %q in this index. Indexed: %s.", r.library, cat.librarySummary())
			if near := index.NearestNames(r.library, cat.libKeys, 3); len(near) > 0 {
				msg += " Did you mean: " + strings.Join(near, ", ") + "?"
			}
			return mcp.NewToolResultError(msg), nil
		}
		vcs := chooseSources(cat, lib, r.version, r.source, r.proj)
		if len(vcs) == 0 {
			return mcp.NewToolResultError(fmt.Sprintf("search_apis: library %s has no bundles from source %q; its sources: %s", lib, r.source, strings.Join(cat.labels[lib], ", "))), nil
		}
		vc := vcs[0]
		choices[lib], bySource[lib] = vc, vcs
		out.Library, out.Version = lib, &vc
		q.Library = lib
		if len(vcs) == 1 {
			q.Version = vc.Served
		} else {
			out.Sources = vcs
			q.K = min(r.k*3, 3*MaxK)
		}
		if lib != r.library {
			out.Notes = append(out.Notes, fmt.Sprintf("library %q resolved to %q", r.library, lib))
		}
	} else {
		if !slices.ContainsFunc(cat.sources, func(l string) bool { return index.SourceMatches(l, r.source) }) {
			return mcp.NewToolResultError(fmt.Sprintf("search_apis: this index has no bundles from source %q; its sources: %s",
				truncate(oneLine(r.source), 200), strings.Join(cat.sources, ", "))), nil
		}
		// Over-fetch: hits of versions other than the one chosen for their
		// library are dropped below.
		q.K = min(r.k*3, 3*MaxK)
	}
	hits, err := st.Search(ctx, q)
	if err != nil {
		if _, ok := errors.AsType[*argError](err); ok {
			return toolError(err)
		}
		return nil, fmt.Errorf("search %q: %w", r.query, err)
	}
	out.Notes = append(out.Notes, st.Notices()...)

	type item struct {
		b     *bundles.Bundle
		hit   SearchHit
		vc    versionChoice
		parts []part
	}
	var items []item
	var neighbours []string
	seen := map[string]bool{}
	for _, h := range hits {
		if h.Weak {
			if !slices.Contains(neighbours, h.APIName) && len(neighbours) < 5 {
				neighbours = append(neighbours, h.APIName)
			}
			continue
		}
		vcs, ok := bySource[h.Library]
		if !ok {
			vcs = chooseSources(cat, h.Library, r.version, r.source, r.proj)
			bySource[h.Library] = vcs
			if len(vcs) > 0 {
				choices[h.Library] = vcs[0]
			}
		}
		kind, _, _ := strings.Cut(h.Source, ":")
		i := slices.IndexFunc(vcs, func(vc versionChoice) bool { return vc.Source == "" || vc.Source == kind })
		if i < 0 || !index.SourceMatches(h.Source, r.source) {
			continue
		}
		vc := vcs[i]
		if h.Version != vc.Served || seen[h.APIName+"\x00"+kind] {
			continue
		}
		b, ok := st.BundleFrom(h.APIName, h.Version, h.Source)
		if !ok || b.Library != h.Library || bundleVersion(b) != h.Version {
			continue
		}
		seen[h.APIName+"\x00"+kind] = true
		items = append(items, item{b: b, hit: h, vc: vc, parts: renderParts(b, r.comps)})
		if len(items) == r.k {
			break
		}
	}
	if r.proj != nil {
		out.Project = r.proj.Dir
	}
	if r.library == "" && (r.version != "" || r.proj != nil) {
		// The libraries of the answer whose version was not simply the
		// latest: a fallback, or one the project declares.
		served := map[string]bool{}
		for _, it := range items {
			served[it.b.Library] = true
		}
		var fb []string
		for lib, vc := range choices {
			if vc.Match == MatchFallback || vc.From != "" && (served[lib] || vc.Match == MatchApproximate) {
				fb = append(fb, lib+": "+vc.Note())
			}
		}
		slices.Sort(fb)
		out.Notes = append(out.Notes, fb...)
	} else if out.Version != nil && (out.Version.Match == MatchFallback || out.Version.From != "") {
		out.Notes = append(out.Notes, out.Library+": "+out.Version.Note())
	} else if out.Version != nil && r.proj != nil && r.version == "" {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: the project %s does not declare it (read: %s); the latest indexed version is served",
			out.Library, r.proj.Dir, filesRead(r.proj)))
	}
	var libs []string
	if out.Library != "" {
		libs = []string{out.Library}
	}
	for _, it := range items {
		if !slices.Contains(libs, it.b.Library) {
			libs = append(libs, it.b.Library)
		}
	}
	out.Notes = append(out.Notes, projectNotes(r.proj, cat, libs)...)

	if len(items) == 0 {
		return s.noHits(cat, r, out, neighbours), nil
	}
	// A query that is one name which no API has: the results match its
	// words only, which the agent must not take for that API.
	var nameNote string
	if name, ok := nameQuery(r.query); ok && !slices.ContainsFunc(hits, func(h SearchHit) bool { return h.Exact }) {
		out.Suggestions = index.SuggestNames(name, suggestionPool(cat, out.Library), 5)
		nameNote = unnamedNote(name, out)
		out.Notes = append([]string{nameNote}, out.Notes...)
	}

	packed := make([]packItem, len(items))
	for i, it := range items {
		packed[i] = packItem{header: itemHeader(i+1, it.b, it.vc), parts: it.parts, name: it.b.APIName}
	}
	// The note on an unknown name comes first, above the count.
	intro, notes := "", out.Notes
	if nameNote != "" {
		intro, notes = "NOTE: "+nameNote+"\n", notes[1:]
	}
	intro += fmt.Sprintf("%d novel API(s) for %q", len(items), r.query)
	if out.Library != "" {
		intro += " in " + out.Library
	}
	intro += fmt.Sprintf(" · components %s · budget %d tokens (characters/4)\n", out.Components, r.maxTokens)
	for _, n := range notes {
		intro += "NOTE: " + oneLine(n) + "\n"
	}

	text, total := fitAnswer(r.maxTokens, func(textBudget int) (string, any) {
		p := pack(intro, packed, textBudget)
		out.Results, out.Omitted = nil, nil
		for _, i := range p.included {
			it := items[i]
			si := searchItem{Rank: i + 1, APIName: it.b.APIName, Library: it.b.Library, Version: bundleVersion(it.b),
				Match: it.vc.Match, From: it.vc.From, Handle: handleFrom(it.b, it.vc), Score: round3(it.hit.Score),
				Components: codes(p.partsShown[i]), Source: sourceShown(it.b, it.vc), Truncated: p.truncated[i], Instances: it.b.PublicInstances()}
			si.Missing = strings.Join(missingParts(it.b, r.comps, it.parts), "+")
			out.Results = append(out.Results, si)
		}
		for _, i := range p.listed {
			out.Omitted = append(out.Omitted, omittedItem{APIName: items[i].b.APIName, Handle: handleFrom(items[i].b, items[i].vc)})
		}
		out.OmittedMore = len(p.omitted) - len(p.listed)
		return p.text, out
	})
	out.Tokens = total
	return mcp.NewToolResultStructured(out, text), nil
}

// noHits is the short answer when nothing matched (scenario T15): nearest
// names, never a dump.
func (s *Server) noHits(cat *catalog, r searchReq, out searchOut, neighbours []string) *mcp.CallToolResult {
	out.Suggestions = index.SuggestNames(r.query, suggestionPool(cat, out.Library), 5)
	for _, n := range neighbours {
		if !slices.Contains(out.Suggestions, n) {
			out.Neighbours = append(out.Neighbours, n)
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "No novel API matched %q", r.query)
	if out.Library != "" {
		fmt.Fprintf(&sb, " in %s", out.Library)
		if out.Version != nil && out.Version.Served != "" {
			fmt.Fprintf(&sb, " %s", out.Version.Served)
		}
	}
	sb.WriteString(".\n")
	for _, n := range out.Notes {
		sb.WriteString("NOTE: " + oneLine(n) + "\n")
	}
	if len(out.Suggestions) > 0 {
		fmt.Fprintf(&sb, "Nearest API names: %s. Call get_api with one of them, or search again with different words.\n", strings.Join(oneLines(out.Suggestions), ", "))
	} else {
		sb.WriteString("No similar API names either. The API may not be novel (then your own knowledge applies) or its library is not indexed.\n")
	}
	if len(out.Neighbours) > 0 {
		fmt.Fprintf(&sb, "Loosely related by vector similarity only (no word or name matched): %s.\n", strings.Join(oneLines(out.Neighbours), ", "))
	}
	fmt.Fprintf(&sb, "Indexed libraries: %s.\n", truncate(cat.librarySummary(), 600))
	out.Results = []searchItem{}
	text := sb.String()
	out.Tokens = tokens(text) + tokens(mustJSON(out))
	return mcp.NewToolResultStructured(out, text)
}

// suggestionPool returns the names near-miss suggestions are drawn from:
// those of library when it is set and has any, else all (aliases included).
func suggestionPool(cat *catalog, library string) []string {
	if library == "" {
		return cat.allNames
	}
	cands := slices.DeleteFunc(slices.Clone(cat.allNames), func(n string) bool {
		return bundles.TopLevel(n) != library && !strings.HasPrefix(n, library+".")
	})
	if len(cands) == 0 {
		return cat.allNames
	}
	return cands
}

// nameQuery reports whether query is a single name written like code
// ("np.trapz", "DataFrame.applymap", "matrix_norm()", "`cumsum`"): dotted,
// with an underscore or a lower-to-upper case change, or decorated as code.
// A plain word ("interpolate") may be a description and does not count.
// name is the query without its decoration.
func nameQuery(query string) (name string, ok bool) {
	q := strings.TrimSpace(query)
	var before, after byte // the decoration, as index.IdentShaped reads it
	if strings.HasPrefix(q, "`") {
		before = '`'
	}
	if strings.HasSuffix(q, "()") {
		after = '('
	}
	name = strings.TrimSuffix(strings.Trim(q, "`"), "()")
	if !identifier.MatchString(name) || !index.IdentShaped(name, before, after) {
		return "", false
	}
	return name, true
}

// unnamedNote is the one-line note for a name query that no indexed API
// has: what that may mean, that the results match its words only, and the
// nearest names (out.Suggestions).
func unnamedNote(name string, out searchOut) string {
	where := ""
	if out.Library != "" {
		where = " in " + out.Library
		if out.Version != nil && out.Version.Served != "" {
			where += " " + out.Version.Served
		}
	}
	note := fmt.Sprintf("no novel API named %q is indexed%s: it may be an API that is not novel (then your own knowledge applies) or one that was removed or renamed. The results below match its words only, not the name", name, where)
	if len(out.Suggestions) > 0 {
		return note + ". Nearest names: " + strings.Join(oneLines(out.Suggestions), ", ") + "."
	}
	return note + "; no indexed name is close to it."
}

func codes(ps []part) string {
	var cs []string
	for _, p := range ps {
		cs = append(cs, p.code)
	}
	if len(cs) == 0 {
		return "none"
	}
	return strings.Join(cs, "+")
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own plain structs are marshalled
	}
	return string(b)
}
