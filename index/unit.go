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
	Key       string // apiKey(api, version)
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

// unitsOf returns the non-empty components of b as retrieval units.
func unitsOf(b *bundles.Bundle) []unit {
	version := bundleVersion(b)
	key := apiKey(b.APIName, version)
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
