package bundles

// A Bundle is the knowledge bundle of one novel API: the protocol's
// bundles.jsonl record (novelapibench-protocol §1.2) with novelapi's
// provenance added. Published fields keep their names and meanings; files
// written by the published benchmark decode unchanged (extra fields are
// ignored, missing ones stay zero).
type Bundle struct {
	APIName        string      `json:"api_name"`
	Library        string      `json:"library"`
	Domain         string      `json:"domain"`
	SName          string      `json:"s_name"`
	SParam         []Parameter `json:"s_param"`
	ReturnType     *string     `json:"return_type"`
	Examples       []Example   `json:"examples"`
	Mechanism      Mechanism   `json:"mechanism"`
	Implementation string      `json:"implementation"`
	IsModified     bool        `json:"is_modified"`
	OldSignature   *string     `json:"old_signature"`
	OldParameters  []ParamInfo `json:"old_parameters"`
	RequiresFileIO bool        `json:"requires_file_io"`
	Provenance     *Provenance `json:"provenance,omitempty"`
}

// A Parameter is one S_param entry (protocol §1.2). Default holds the Python
// literal as a string (e.g. "'cpu'", "None") or nil when there is none.
type Parameter struct {
	Name        string  `json:"name"`
	Type        *string `json:"type"`
	Default     *string `json:"default"`
	Description string  `json:"description"`
	Constraints *string `json:"constraints"`
}

// An Example is one E component entry: a full runnable script and whether it
// was executed. Status is "executed", "static" or "failed"; failed examples
// are never served or rendered.
type Example struct {
	Code   string `json:"code"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	// Source says where the example came from: "docstring", "tests", "import".
	Source string `json:"source,omitempty"`
}

// Mechanism is the M component (protocol §1.2). Grounding is "docstring",
// "source" or "paper".
type Mechanism struct {
	Text           string   `json:"text"`
	Grounding      string   `json:"grounding"`
	References     []string `json:"references"`
	SourceSummary  *string  `json:"source_summary"`
	ChangelogNotes *string  `json:"changelog_notes"`
	// Generator says who wrote Text: "docstring" (offline extraction) or
	// "llm:<model>" when an endpoint produced it.
	Generator string `json:"generator,omitempty"`
}

// ParamInfo is the protocol's ParameterInfo (candidates.jsonl and
// old_parameters): kind is inspect's parameter kind name, e.g.
// "POSITIONAL_OR_KEYWORD"; default is str(default) or nil.
type ParamInfo struct {
	Name       string  `json:"name"`
	Annotation *string `json:"annotation"`
	Default    *string `json:"default"`
	Kind       string  `json:"kind"`
}

// Provenance records where a bundle and each of its components came from.
// It is novelapi's extension; the published files lack it.
type Provenance struct {
	Library     string `json:"library"`
	Version     string `json:"version"` // distribution version (importlib.metadata)
	OldVersion  string `json:"old_version,omitempty"`
	Suite       string `json:"suite,omitempty"` // Debian suite of the environment
	Environment string `json:"environment,omitempty"`
	SourceFile  string `json:"source_file,omitempty"` // prefix-normalised
	SourceLine  int    `json:"source_line,omitempty"`
	Kind        string `json:"kind,omitempty"` // function, class, method
	// Aliases lists every other import path of the same object.
	Aliases []string `json:"aliases,omitempty"`
	// Extension marks APIs the published protocol would not list (methods of
	// classes, ...): "" means protocol-compatible.
	Extension string `json:"extension,omitempty"`
	// Components maps "S", "E", "M", "C" to how that component was obtained
	// ("introspected", "docstring", "executed_example", "source", "import:<dataset>", ...).
	Components map[string]string `json:"components,omitempty"`
	// Hash is the sha256 (hex) of the canonical published fields.
	Hash string `json:"hash,omitempty"`
	// Origin names an imported dataset ("codeupdatearena", "pricoder"), "" for our own.
	Origin string `json:"origin,omitempty"`
}
