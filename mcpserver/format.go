package mcpserver

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/index"
)

// HandlePrefix starts every handle; a handle is also the URI of the API's
// resource ("novelapi://api/numpy.unstack@2.2.4").
const HandlePrefix = "novelapi://api/"

// tokens estimates the tokens of s as ceil(characters/4), the estimator the
// server states in its answers.
func tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// handleOf returns the handle of a bundle: its resource URI with the
// version, when it has one.
func handleOf(b *bundles.Bundle) string {
	if v := bundleVersion(b); v != "" {
		return HandlePrefix + b.APIName + "@" + v
	}
	return HandlePrefix + b.APIName
}

// handleFrom is handleOf for a bundle served under choice vc: when vc
// names a source (its library is served from several side by side, or one
// was asked for), the handle ends in "~KIND" ("~private", "~debian"), so
// that it fetches that source's bundle (docs/private.md §4).
func handleFrom(b *bundles.Bundle, vc versionChoice) string {
	if vc.Source == "" {
		return handleOf(b)
	}
	return handleOf(b) + "~" + sourceKind(b)
}

// handleSource matches the "~KIND" a handle may end in (handleFrom).
var handleSource = regexp.MustCompile(`~(` + index.SourceDebian + `|` + index.SourcePrivate + `|` + index.SourceImport + `|` + index.SourcePublished + `)$`)

// parseHandle accepts an API name or a handle, with or without its
// HandlePrefix, and returns the name, the version the handle pinned (""
// when none) and the source kind it names ("" when none; handleFrom).
func parseHandle(s string) (name, version, source string) {
	s = strings.TrimSpace(s)
	prefixed := strings.HasPrefix(s, HandlePrefix)
	if !prefixed {
		// "numpy.unstack()" or "`numpy.unstack`": agents decorate names.
		s = strings.Trim(s, "`'\" ")
	}
	if m := handleSource.FindStringSubmatchIndex(s); m != nil {
		s, source = s[:m[0]], s[m[2]:m[3]]
	}
	if prefixed {
		s = strings.TrimPrefix(s, HandlePrefix)
		if i := strings.LastIndexByte(s, '@'); i >= 0 {
			return s[:i], s[i+1:], source
		}
		return s, "", source
	}
	// A handle without its prefix ("numpy.unstack@2.2.4"): no Python name
	// has an "@".
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s, version = s[:i], strings.TrimSpace(s[i+1:])
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), "()")
	return s, version, source
}

// componentSynonyms maps words agents use to component codes.
var componentSynonyms = map[string]string{
	"signature": "S", "sig": "S", "surface": "S", "params": "S_param", "parameters": "S_param", "name": "S_name",
	"example": "E", "examples": "E", "usage": "E",
	"mechanism": "M", "explanation": "M", "background": "M", "docs": "M",
	"implementation": "C", "source": "C", "code": "C", "impl": "C",
}

// parseComponentList parses the components argument: codes S, S_name,
// S_param, E, M, C, condition strings ("S+E", "Full"), or the synonyms in
// componentSynonyms. nil yields def. An unknown value is an argument error
// naming the valid ones.
func parseComponentList(tool string, list []string, def bundles.Components) (bundles.Components, error) {
	if len(list) == 0 {
		return def, nil
	}
	var c bundles.Components
	for _, item := range list {
		if syn, ok := componentSynonyms[strings.ToLower(strings.TrimSpace(item))]; ok {
			item = syn
		}
		x, err := bundles.ParseComponents(item)
		if err != nil {
			return 0, argErrorf("%s: unknown component %q; valid components: S (signature: name and parameters), S_name, S_param, E (examples), M (mechanism), C (implementation source), or Full", tool, item)
		}
		c |= x
	}
	if c == 0 {
		return 0, argErrorf("%s: components selects nothing; use e.g. [\"S\",\"E\"]", tool)
	}
	return c, nil
}

// A part is one rendered component of a bundle.
type part struct {
	code string // "S", "E", "M", "C"
	text string // the bundle's text, as bundles.RenderComponents gives it
	note string // the server's notice on it (a cut), shown after its block
}

// componentNames names the component codes in the label of a quoted part.
var componentNames = map[string]string{"S": "signature", "E": "examples", "M": "mechanism", "C": "implementation source"}

// quoted returns p as an answer shows it: a line naming the component
// and the API it is bundle text of, the text in a block it cannot close
// ([quoteBlock]), and p.note, if any, after the block. Everything outside
// the block is the server's (docs/serving.md §6).
func (p part) quoted(api string) string {
	s := fmt.Sprintf("%s (%s) of %s, bundle text:\n%s", p.code, componentNames[p.code], oneLine(api), quoteBlock(p.text))
	if p.note != "" {
		s += "\n" + p.note
	}
	return s
}

// quoteBlock returns text inside a fenced code block (CommonMark 0.31
// §4.5) that no line of text can close or break out of: the fence is a
// run of backticks longer than the longest run in text, at least three,
// and a closing fence must be at least as long as the opening one. The
// info string "text" marks the content as data, not markup.
func quoteBlock(text string) string {
	n, run := 3, 0
	for _, r := range text {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", n)
	return fence + "text\n" + strings.TrimSuffix(text, "\n") + "\n" + fence
}

// renderParts renders the selected components of b one by one, in the
// protocol's order (docs/protocol.md §2.2); joining the texts with a
// blank line gives bundles.RenderComponents(b, comps) plus, when S_param is
// selected and the call signature is known ([callSignature]), a
// "Signature:" line after the "API:" line. Empty components are skipped.
func renderParts(b *bundles.Bundle, comps bundles.Components) []part {
	var out []part
	for _, x := range []struct {
		code string
		mask bundles.Components
	}{{"S", bundles.CompS}, {"E", bundles.CompE}, {"M", bundles.CompM}, {"C", bundles.CompC}} {
		if sel := comps & x.mask; sel != 0 {
			if t := bundles.RenderComponents(b, sel); t != "" {
				if sel.Has(bundles.CompSParam) {
					t = withSignature(t, b)
				}
				out = append(out, part{code: x.code, text: t})
			}
		}
	}
	return out
}

// withSignature adds the signature line to a rendered S component: after
// its "API:" line, else first.
func withSignature(s string, b *bundles.Bundle) string {
	sig := callSignature(b)
	if sig == "" {
		return s
	}
	line := signatureLine(sig)
	if first, rest, ok := strings.Cut(s, "\n"); ok && strings.HasPrefix(first, "API: ") {
		return first + "\n" + line + "\n" + rest
	}
	if strings.HasPrefix(s, "API: ") {
		return s + "\n" + line
	}
	return line + "\n\n" + s
}

// missingParts lists the selected components that b lacks (empty), so the
// agent knows they were asked for and do not exist.
func missingParts(b *bundles.Bundle, comps bundles.Components, got []part) []string {
	var out []string
	for _, x := range []struct {
		code string
		mask bundles.Components
	}{{"S", bundles.CompS}, {"E", bundles.CompE}, {"M", bundles.CompM}, {"C", bundles.CompC}} {
		if comps&x.mask == 0 {
			continue
		}
		if !slices.ContainsFunc(got, func(p part) bool { return p.code == x.code }) {
			out = append(out, x.code)
		}
	}
	return out
}

// provenance is the machine-readable origin of a served item.
type provenance struct {
	Source      string            `json:"source,omitempty"` // file:line
	Kind        string            `json:"kind,omitempty"`
	Environment string            `json:"environment,omitempty"`
	OldVersion  string            `json:"old_version,omitempty"`
	Components  map[string]string `json:"components,omitempty"` // how each component was obtained
	Hash        string            `json:"bundle_hash,omitempty"`
	Origin      string            `json:"origin,omitempty"`
}

func provenanceOf(b *bundles.Bundle) provenance {
	p := b.Provenance
	if p == nil {
		return provenance{Origin: "published bundle (no provenance recorded)", Hash: shortHash(b.ComputeHash())}
	}
	src := p.SourceFile
	if src != "" && p.SourceLine > 0 {
		src = fmt.Sprintf("%s:%d", src, p.SourceLine)
	}
	h := p.Hash
	if h == "" {
		h = b.ComputeHash()
	}
	return provenance{Source: src, Kind: p.Kind, Environment: p.Environment, OldVersion: p.OldVersion,
		Components: p.Components, Hash: shortHash(h), Origin: p.Origin}
}

func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// line renders p in one line for the text answer.
func (p provenance) line() string {
	var f []string
	if p.Source != "" {
		f = append(f, "source "+p.Source)
	}
	if p.Kind != "" {
		f = append(f, p.Kind)
	}
	if len(p.Components) > 0 {
		keys := make([]string, 0, len(p.Components))
		for k := range p.Components {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var cs []string
		for _, k := range keys {
			cs = append(cs, k+"="+p.Components[k])
		}
		f = append(f, "obtained: "+strings.Join(cs, ", "))
	}
	if p.Environment != "" {
		f = append(f, "env "+p.Environment)
	}
	if p.Origin != "" {
		f = append(f, "origin "+p.Origin)
	}
	if p.Hash != "" {
		f = append(f, "bundle "+p.Hash)
	}
	return strings.Join(f, " · ")
}

// distinctMethodPaths keeps, of paths ordered shortest first, one path per
// Class.method ending: a module that merely imports a class
// (pandas.io.feather_format imports DataFrame) gives it one more public
// path, pandas.io.feather_format.DataFrame.any, that nobody writes. Paths
// of functions and classes are kept as they are.
func distinctMethodPaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		segs := strings.Split(p, ".")
		if n := len(segs); n >= 3 && segs[n-2] != "" && unicode.IsUpper(rune(segs[n-2][0])) {
			end := segs[n-2] + "." + segs[n-1]
			if seen[end] {
				continue
			}
			seen[end] = true
		}
		out = append(out, p)
	}
	return out
}

// novelty describes why the API is novel, in a few words.
func novelty(b *bundles.Bundle) string {
	old := ""
	if b.Provenance != nil && b.Provenance.OldVersion != "" {
		old = " since " + b.Provenance.OldVersion
	}
	if b.Provenance != nil && b.Provenance.Novelty == bundles.NoveltyPrivate {
		return "private library API"
	}
	if b.IsModified {
		return "signature changed" + old
	}
	return "new API" + old
}

// itemHeader is the first lines of a served API: name, library, version
// and match, novelty, handle, other import paths, provenance and (for
// modified APIs) the previous signature.
// maxImportPaths is how many public import paths an item header lists.
const maxImportPaths = 4

func itemHeader(rank int, b *bundles.Bundle, vc versionChoice) string {
	var sb strings.Builder
	// Every field from the bundle goes through oneLine: a name or
	// signature with a line break could otherwise start a line that reads
	// as the server's (docs/serving.md §6).
	if rank > 0 {
		fmt.Fprintf(&sb, "### %d. %s\n", rank, oneLine(b.APIName))
	} else {
		fmt.Fprintf(&sb, "### %s\n", oneLine(b.APIName))
	}
	ver := oneLine(bundleVersion(b))
	if ver == "" {
		ver = "unversioned"
	}
	// The line states the served version, so the match says only how the
	// request chose it, without [versionChoice.Note]'s parentheses.
	match := vc.Match
	switch {
	case vc.From != "" && vc.Match == MatchApproximate:
		match = "APPROXIMATE: the version the project's " + vc.From + " declares is not indexed"
	case vc.From != "" && vc.Match != MatchFallback:
		match = vc.Match + " match for the project's " + vc.From
	case vc.Match == MatchExact && vc.Requested == ver:
		match = "exact match"
	case vc.Match == MatchExact || vc.Match == MatchRange:
		match = vc.Match + " match for requested " + vc.Requested
	case vc.Match == MatchFallback:
		match = "FALLBACK: requested " + vc.Requested + " is not available"
	}
	fmt.Fprintf(&sb, "library %s %s (%s) · %s\n", oneLine(b.Library), ver, oneLine(match), oneLine(novelty(b)))
	if src := sourceShown(b, vc); src != "" {
		fmt.Fprintf(&sb, "source: %s\n", oneLine(src))
	}
	fmt.Fprintf(&sb, "handle: %s\n", oneLine(handleFrom(b, vc)))
	if names := b.Names(); len(names) > 1 {
		if imp := index.PreferredImport(names); imp != b.APIName {
			fmt.Fprintf(&sb, "import as: %s\n", oneLine(imp))
		}
		// The public paths, a few: internal ones (pandas.io.sql.DataFrame.min,
		// numpy.lib._shape_base_impl.unstack) are not for user code, and a
		// list of 20 spent the caller's token budget.
		shown := distinctMethodPaths(index.PublicImports(names))
		shown = shown[:min(len(shown), maxImportPaths)]
		line := strings.Join(oneLines(shown), ", ")
		if more := len(names) - len(shown); more > 0 {
			line += fmt.Sprintf(" (+%d more)", more)
		}
		fmt.Fprintf(&sb, "valid import paths: %s\n", line)
	}
	if b.Provenance != nil && len(b.Provenance.Replaces) > 0 {
		// The deprecated names a user may remember (numpy.trapz for
		// numpy.trapezoid): say the new API is the one to call. Names a
		// release of the diffed span removed (numpy.in1d for numpy.isin,
		// from the release notes) are said apart.
		removed := map[string]bool{}
		for _, l := range b.Provenance.ReplacesNotes {
			removed[l.Path] = l.Removed
		}
		var deprecated, gone []string
		for _, p := range b.Provenance.Replaces {
			if removed[p] {
				gone = append(gone, p)
			} else {
				deprecated = append(deprecated, p)
			}
		}
		for _, l := range []struct {
			label string
			paths []string
		}{{"deprecated in this release", deprecated}, {"removed by this release", gone}} {
			if len(l.paths) == 0 {
				continue
			}
			r := distinctMethodPaths(index.PublicImports(l.paths))
			if len(r) == 0 {
				r = l.paths
			}
			fmt.Fprintf(&sb, "replaces (%s): %s\n", l.label, strings.Join(oneLines(r[:min(len(r), maxImportPaths)]), ", "))
		}
	}
	if in := b.PublicInstances(); len(in) > 0 {
		// A class users reach through its one instance (scipy.stats.triang
		// for scipy.stats.distributions.triang_gen): the name to call.
		fmt.Fprintf(&sb, "call through the public instance: %s\n", strings.Join(oneLines(in[:min(len(in), maxImportPaths)]), ", "))
	}
	if b.Provenance != nil && len(b.Provenance.InstanceMethods) > 0 {
		// The class's own signature (S), or an instance's (*args, **kwds),
		// is not how it is called: the instance's documented call forms are.
		name := b.APIName
		if in := b.PublicInstances(); len(in) > 0 {
			name = in[0]
		}
		leaf := name[strings.LastIndexByte(name, '.')+1:]
		fmt.Fprintf(&sb, "%s's methods (its docstring): %s\n", oneLine(leaf), strings.Join(oneLines(b.Provenance.InstanceMethods), "; "))
	}
	if line := provenanceOf(b).line(); line != "" {
		fmt.Fprintf(&sb, "provenance: %s\n", oneLine(line))
	}
	if b.IsModified && b.OldSignature != nil && *b.OldSignature != "" {
		fmt.Fprintf(&sb, "%s%s\n", previousSignaturePrefix, oneLine(*b.OldSignature))
	}
	if ch := b.SignatureChanges(); len(ch) > 0 {
		// What to fix in code written for the old release, without diffing
		// the two signatures by eye.
		fmt.Fprintf(&sb, "what changed: %s\n", strings.Join(oneLines(ch), "; "))
	}
	return sb.String()
}

// oneLine returns s with its control characters (line breaks included)
// written as escapes, so that text from a bundle or a request that the
// server places on one of its own lines cannot start another line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// oneLines applies oneLine to each of ss.
func oneLines(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = oneLine(s)
	}
	return out
}
