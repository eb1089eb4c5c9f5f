package bundles

import (
	"encoding/json"
	"maps"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// A Candidate is one Stage-1 discovery record, the protocol's APIEntry
// (data/pool/candidates.jsonl, docs/protocol.md §1.6).
type Candidate struct {
	APIName    string      `json:"api_name"`
	Kind       string      `json:"kind"`      // "function" or "class" (novelapi adds "method", see Extra.Extension)
	Module     string      `json:"module"`    // module the entry was found in
	Signature  string      `json:"signature"` // str(inspect.signature); includes self for classes
	Parameters []ParamInfo `json:"parameters"`
	Docstring  *string     `json:"docstring"`
	SourceFile *string     `json:"source_file"` // prefix-normalised, "<site-packages>/..."
	Library    string      `json:"library"`
	Domain     string      `json:"domain"`
	OldVersion *string     `json:"old_version"` // nil when no pre-boundary release existed
	NewVersion string      `json:"new_version"`
	IsModified bool        `json:"is_modified"`
	Extra      Extra       `json:"extra"`
}

// Candidate kinds (docs/protocol.md §1.6; KindMethod is novelapi's).
const (
	KindFunction = "function"
	KindClass    = "class"
	KindMethod   = "method"
)

// ExtensionNoSource is the Extra.Extension (and Provenance.Extension) of an
// API without Python source: the published protocol drops it (no_source,
// docs/protocol.md §7), novelapi serves it with S, E and M and C marked
// unavailable.
const ExtensionNoSource = "no_source"

// Class roles recorded in Extra.ClassRole (docs/protocol.md §1.6).
const (
	RoleException  = "exception"
	RoleEnum       = "enum"
	RoleProtocol   = "protocol"
	RoleTypedDict  = "typeddict"
	RoleNamedTuple = "namedtuple"
	RoleDataclass  = "dataclass"
	RolePlainClass = "plain_class"
)

// Extra is a candidate's "extra" dict (docs/protocol.md §1.6). Known
// keys are typed fields; any other key is kept verbatim in Other, so a
// published file round-trips. Empty fields are omitted when encoding.
type Extra struct {
	ClassRole            string          `json:"class_role,omitempty"`
	OldSignature         *string         `json:"old_signature,omitempty"`  // modified APIs
	OldParameters        []ParamInfo     `json:"old_parameters,omitempty"` // modified APIs
	OldAPIName           string          `json:"old_api_name,omitempty"`
	Relocated            bool            `json:"relocated,omitempty"`
	IdentityDrift        json.RawMessage `json:"identity_drift,omitempty"`
	NoPreBoundaryRelease bool            `json:"no_pre_boundary_release,omitempty"`

	// Aliases lists the other import paths of the same object (novelapi).
	Aliases []string `json:"aliases,omitempty"`
	// Extension marks entries the published protocol would not list
	// ("method", ...); "" means protocol-compatible (novelapi).
	Extension string `json:"extension,omitempty"`
	// Replaces lists the import paths of older APIs of the new release
	// whose docstrings say they are deprecated in favour of this one
	// ("numpy.trapz": "Please use `trapezoid` instead"), so that a user
	// who remembers the old name finds the new API (novelapi; Diff).
	Replaces []string `json:"replaces,omitempty"`

	// Other holds keys not listed above, verbatim.
	Other map[string]json.RawMessage `json:"-"`
}

type extraJSON Extra

// UnmarshalJSON decodes the known keys into fields and keeps the rest in
// Other.
func (e *Extra) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*e = Extra{}
		return nil
	}
	var v extraJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	for _, k := range extraKeys {
		delete(all, k)
	}
	if len(all) > 0 {
		v.Other = all
	}
	*e = Extra(v)
	return nil
}

var extraKeys = []string{"class_role", "old_signature", "old_parameters", "old_api_name",
	"relocated", "identity_drift", "no_pre_boundary_release", "aliases", "extension"}

// MarshalJSON encodes the non-empty known fields and every key of Other as
// one object; known fields win over Other keys of the same name.
func (e Extra) MarshalJSON() ([]byte, error) {
	known, err := jsonl.MarshalNoEscape(extraJSON(e))
	if err != nil {
		return nil, err
	}
	if len(e.Other) == 0 {
		return known, nil
	}
	all := maps.Clone(e.Other)
	var k map[string]json.RawMessage
	if err := json.Unmarshal(known, &k); err != nil {
		return nil, err
	}
	maps.Copy(all, k)
	return jsonl.MarshalNoEscape(all)
}

// ReadCandidates reads a candidates.jsonl file, see [jsonl.Read].
func ReadCandidates(path string, opts jsonl.ReadOptions) ([]Candidate, jsonl.ReadStats, error) {
	return jsonl.Read[Candidate](path, opts)
}

// WriteCandidates writes candidates atomically to path, see [jsonl.Write].
func WriteCandidates(path string, cs []Candidate) error {
	return jsonl.Write(path, cs)
}

// MarshalJSON encodes c, writing nil parameters as [].
func (c Candidate) MarshalJSON() ([]byte, error) {
	type candidateJSON Candidate
	v := candidateJSON(c)
	if v.Parameters == nil {
		v.Parameters = []ParamInfo{}
	}
	return jsonl.MarshalNoEscape(v)
}
