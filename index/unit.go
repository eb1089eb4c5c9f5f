package index

import (
	"strings"

	"github.com/novelapi/novelapi/bundles"
)

// Component letters of the retrieval unit (docs/protocol.md §1.2:
// S = S_name + S_param, E = examples, M = mechanism, C = implementation).
const (
	CompS = "S"
	CompE = "E"
	CompM = "M"
	CompC = "C"
)

// AllComponents lists the components in the protocol's order.
var AllComponents = []string{CompS, CompE, CompM, CompC}

// Novelty types of an API.
const (
	NoveltyNew      = "new"      // newly introduced (is_modified false)
	NoveltyModified = "modified" // signature modified (is_modified true)
	// NoveltyPrivate marks every API of a private library served whole
	// (bundles.NoveltyPrivate, docs/private.md §3).
	NoveltyPrivate = bundles.NoveltyPrivate
)

// maxEmbedChars bounds the text of one unit given to the embedder; long
// implementations add little beyond their first part.
const maxEmbedChars = 2500

// A unit is the retrieval unit: one component of one API.
type unit struct {
	ID        string // key + "#" + component
	Key       string // bundleKey of its bundle
	API       string
	Library   string
	Version   string
	Novelty   string
	Domain    string
	Component string
	Names     []string // qualified name, then aliases
	Body      string
}

// bleveDoc is what is indexed in bleve for a unit.
type bleveDoc struct {
	Name      string `json:"name"`
	Body      string `json:"body"`
	API       string `json:"api"`
	Library   string `json:"library"`
	Version   string `json:"version"`
	Novelty   string `json:"novelty"`
	Component string `json:"component"`
}

func (u *unit) doc() bleveDoc {
	return bleveDoc{
		Name: strings.Join(u.Names, " "), Body: u.Body, API: u.API, Library: u.Library,
		Version: u.Version, Novelty: u.Novelty, Component: u.Component,
	}
}

// embedText is the text embedded for the unit: its names and its body.
func (u *unit) embedText() string {
	s := strings.Join(u.Names, " ") + "\n" + u.Body
	if len(s) > maxEmbedChars {
		s = s[:maxEmbedChars]
	}
	return s
}

// bundleVersion returns the distribution version recorded in b's
// provenance, or "" when there is none.
func bundleVersion(b *bundles.Bundle) string {
	if b.Provenance != nil {
		return b.Provenance.Version
	}
	return ""
}

func novelty(b *bundles.Bundle) string {
	if b.Provenance != nil && b.Provenance.Novelty == bundles.NoveltyPrivate {
		return NoveltyPrivate
	}
	if b.IsModified {
		return NoveltyModified
	}
	return NoveltyNew
}

// apiKey identifies one API at one version.
func apiKey(api, version string) string { return api + "@" + version }

// bundleKey identifies b in the index: its API at its version, and for a
// private library's bundle its source too, so that a private library added
// with the name and version of an indexed Debian one is served beside it
// and replaces none of its bundles (docs/private.md §4).
func bundleKey(b *bundles.Bundle) string {
	k := apiKey(b.APIName, bundleVersion(b))
	if b.Private() {
		k += "@" + SourcePrivate
	}
	return k
}

// Source kinds of [SourceOf].
const (
	SourceDebian    = "debian"    // extracted from a Debian environment
	SourcePrivate   = "private"   // a library added with novelapi add
	SourceImport    = "import"    // an imported dataset (Provenance.Origin)
	SourcePublished = "published" // a published bundle without provenance
)

// SourceOf labels where b came from: "private:PATH" for a private
// library, "import:ORIGIN" for an imported dataset, "debian:SUITE" (or
// "debian" when the suite is not recorded) for a Debian library,
// "published" for a bundle without provenance.
func SourceOf(b *bundles.Bundle) string {
	p := b.Provenance
	switch {
	case p == nil:
		return SourcePublished
	case b.Private():
		return SourcePrivate + ":" + p.Source
	case p.Origin != "":
		return SourceImport + ":" + p.Origin
	case p.Suite != "":
		return SourceDebian + ":" + p.Suite
	}
	return SourceDebian
}

// SourceMatches reports whether the source label of a bundle matches
// want: want is "" (any), a kind ("debian", "private") or a whole label
// ("debian:trixie", "private:/src/numpy").
func SourceMatches(label, want string) bool {
	if want == "" || label == want {
		return true
	}
	kind, _, _ := strings.Cut(label, ":")
	return kind == want
}

// unitsOf returns the non-empty components of b as retrieval units.
func unitsOf(b *bundles.Bundle) []unit {
	version := bundleVersion(b)
	key := bundleKey(b)
	base := unit{Key: key, API: b.APIName, Library: b.Library, Version: version, Novelty: novelty(b), Domain: b.Domain, Names: b.Names()}
	var out []unit
	add := func(comp, body string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		u := base
		u.ID = key + "#" + comp
		u.Component = comp
		u.Body = body
		out = append(out, u)
	}
	add(CompS, componentText(b, CompS))
	add(CompE, componentText(b, CompE))
	add(CompM, componentText(b, CompM))
	add(CompC, componentText(b, CompC))
	return out
}

// componentText renders one component for indexing. S is rendered as in
// the protocol (§2.2) plus the old signature of a modified API, so that
// "what changed" queries find it; E is the protocol rendering without the
// examples' expected-output comments; M and C are the protocol renderings.
func componentText(b *bundles.Bundle, comp string) string {
	switch comp {
	case CompS:
		s := bundles.RenderComponents(b, bundles.CompS)
		if b.OldSignature != nil && *b.OldSignature != "" {
			s += "\nPrevious signature: " + *b.OldSignature
		}
		return s
	case CompE:
		// The code without its expected-output comments: printed values
		// (array([ 1,  3,  6])) matched numbers and names of the tasks'
		// context code and lowered the tasks' hit@1 (docs/changelog.md).
		return bundles.StripExampleOutputs(bundles.RenderComponents(b, bundles.CompE))
	case CompM:
		return bundles.RenderComponents(b, bundles.CompM)
	case CompC:
		return bundles.RenderComponents(b, bundles.CompC)
	}
	return ""
}
