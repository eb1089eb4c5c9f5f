package bundles

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// CanonicalJSON returns the canonical encoding of b's published fields, the
// input of [Bundle.ComputeHash]: compact JSON without HTML escaping, fields
// in the order of docs/protocol.md §1.2 (api_name, library, domain,
// s_name, s_param[name, type, default, description, constraints],
// return_type, examples[code, status, reason], mechanism[text, grounding,
// references, source_summary, changelog_notes], implementation,
// is_modified, old_signature, old_parameters[name, annotation, default,
// kind], requires_file_io), nil s_param/examples/references written as [].
// novelapi's extensions (provenance, examples[].source and origin,
// mechanism.generator) are left out.
func (b *Bundle) CanonicalJSON() ([]byte, error) {
	c := *b
	c.Provenance = nil
	c.Mechanism.Generator = ""
	if b.Examples != nil {
		c.Examples = make([]Example, len(b.Examples))
		for i, e := range b.Examples {
			e.Source, e.Origin = "", nil
			c.Examples[i] = e
		}
	}
	return jsonl.MarshalNoEscape(c)
}

// ComputeHash returns the lowercase hex sha256 of [Bundle.CanonicalJSON]:
// two bundles hash alike exactly when their published fields are equal
// (null and "" differ; nil and empty lists of s_param, examples and
// references do not). It does not store the hash; see [Bundle.SetHash].
func (b *Bundle) ComputeHash() string {
	data, err := b.CanonicalJSON()
	if err != nil {
		// Bundle holds only strings, bools, ints and slices of them:
		// encoding cannot fail.
		panic("bundles: encode bundle: " + err.Error())
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// SetHash stores [Bundle.ComputeHash] in b.Provenance.Hash, creating the
// provenance if it is nil, and returns the hash.
func (b *Bundle) SetHash() string {
	h := b.ComputeHash()
	if b.Provenance == nil {
		b.Provenance = &Provenance{}
	}
	b.Provenance.Hash = h
	return h
}
