package bundles

import (
	"strings"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// A Bundle is the knowledge bundle of one novel API: the protocol's
// bundles.jsonl record (docs/protocol.md §1.2) with novelapi's
// provenance added.
//
// Published fields keep their names, order and meanings. Files written by
// the published benchmark decode unchanged: unknown fields are ignored and
// missing ones stay zero. Nullable published fields (return_type,
// old_signature, old_parameters, s_param[].type/default/constraints,
// mechanism.source_summary/changelog_notes) are pointers or nil-able slices
// so that null and "" (or null and []) survive a decode/encode round trip.
// The non-nullable lists s_param, examples and mechanism.references are
// written as [] when nil, never null.
//
// Fields tagged omitempty (Provenance, Example.Source, Mechanism.Generator)
// are novelapi extensions; they are absent from published files and never
// enter the content hash ([Bundle.ComputeHash]).
type Bundle struct {
	APIName        string      `json:"api_name"` // fully qualified, e.g. "numpy.unstack"
	Library        string      `json:"library"`  // library config key, e.g. "numpy", "django"
	Domain         string      `json:"domain"`   // agent_tool, ai4science, data_science, dl or swe
	SName          string      `json:"s_name"`   // S_name; equals APIName
	SParam         []Parameter `json:"s_param"`  // S_param, in signature order
	ReturnType     *string     `json:"return_type"`
	Examples       []Example   `json:"examples"`       // E
	Mechanism      Mechanism   `json:"mechanism"`      // M
	Implementation string      `json:"implementation"` // C; ≤ MaxImplementation chars
	IsModified     bool        `json:"is_modified"`    // signature-modified (true) or new (false)
	OldSignature   *string     `json:"old_signature"`  // includes self for classes
	OldParameters  []ParamInfo `json:"old_parameters"` // nil encodes as null
	RequiresFileIO bool        `json:"requires_file_io"`
	Provenance     *Provenance `json:"provenance,omitempty"`
}

// MaxImplementation is the cap on the C component in characters (Python
// len, i.e. code points); longer implementations are dropped at extraction
// (docs/protocol.md §7, Stage 2).
const MaxImplementation = 12000

// Example statuses (docs/protocol.md §1.2). Only executed and static
// examples are served or rendered.
const (
	StatusExecuted = "executed"
	StatusStatic   = "static"
	StatusFailed   = "failed"
)

// Mechanism groundings (docs/protocol.md §1.2).
const (
	GroundingPaper     = "paper"
	GroundingSource    = "source"
	GroundingDocstring = "docstring"
	// GroundingChangelog marks docstring prose joined by the release-note
	// entry that names the API (novelapi's mechanism tiers, docs/protocol.md
	// §7 "M"); the entry is also in ChangelogNotes.
	GroundingChangelog = "changelog"
)

// A Parameter is one S_param entry (docs/protocol.md §1.2). Type is
// the annotation text or nil. Default holds the Python literal as a string
// ("'cpu'", "None", "-100") or nil when the parameter has none. Description
// may be "". Constraints is never rendered.
type Parameter struct {
	Name        string  `json:"name"`
	Type        *string `json:"type"`
	Default     *string `json:"default"`
	Description string  `json:"description"`
	Constraints *string `json:"constraints"`
}

// An Example is one E entry: a full runnable script and whether it ran.
// Status is [StatusExecuted], [StatusStatic] or [StatusFailed]; Reason says
// why (e.g. "runs cleanly"). Failed examples are never served or rendered.
type Example struct {
	Code   string `json:"code"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	// Source says where the example came from, one of the Source*
	// constants or "import:<dataset>"; "" in published files. novelapi
	// extension.
	Source string `json:"source,omitempty"`
	// Origin says where in its source the example was found; nil in
	// published files. novelapi extension.
	Origin *ExampleOrigin `json:"origin,omitempty"`
}

// Example sources, in the order of trust Stage 2 tries them
// (docs/protocol.md §7 "E", novelapi's example sources).
const (
	SourceDoctest        = "docstring"       // the docstring's doctest examples
	SourceDocstringBlock = "docstring-block" // a code block or Markdown fence in the docstring
	SourceDocs           = "docs"            // a code block of the library's documentation (Debian -doc package)
	SourceOtherDocstring = "other-docstring" // an example in the docstring of another API of the library that uses this one
	SourceTests          = "tests"           // a test of the library's installed test suite, cut down
)

// An ExampleOrigin locates an example in its source: the Debian package
// that ships the file, the file (a path inside the environment, or inside
// the -doc package for SourceDocs), the 1-based line, and for tests the
// test's name ("TestClass.test_name").
type ExampleOrigin struct {
	Package string `json:"package,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Test    string `json:"test,omitempty"`
}

// Stage 2 writes a statement's expected doctest output as comment lines
// under it: the first starts with ExampleOutputPrefix, the rest with
// ExampleOutputCont (py/extract.py output_comment, ExtractRules 5).
const (
	ExampleOutputPrefix = "# -> "
	ExampleOutputCont   = "#    "
)

// StripExampleOutputs removes the expected-output comment lines
// (ExampleOutputPrefix and the ExampleOutputCont lines after it) from
// example code, for uses that want the code alone (the index: printed
// values are not words a question uses).
func StripExampleOutputs(code string) string {
	if !strings.Contains(code, ExampleOutputPrefix) {
		return code
	}
	lines := strings.Split(code, "\n")
	out := lines[:0]
	inOutput := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, ExampleOutputPrefix):
			inOutput = true
			continue
		case inOutput && strings.HasPrefix(l, ExampleOutputCont):
			continue
		}
		inOutput = false
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// Served reports whether the example may be shown to a model: its status is
// executed or static (docs/protocol.md §1.2, §7 Stage 2).
func (e Example) Served() bool { return e.Status == StatusExecuted || e.Status == StatusStatic }

// Mechanism is the M component (docs/protocol.md §1.2). Grounding is
// [GroundingDocstring], [GroundingChangelog], [GroundingSource] or [GroundingPaper]. References are
// paper titles. SourceSummary is "source_unavailable" or nil; ChangelogNotes
// is ≤1000 chars or nil and may hold page junk (§9.18), which is kept.
type Mechanism struct {
	Text           string   `json:"text"`
	Grounding      string   `json:"grounding"`
	References     []string `json:"references"`
	SourceSummary  *string  `json:"source_summary"`
	ChangelogNotes *string  `json:"changelog_notes"`
	// Generator says who wrote Text: "docstring" (offline extraction) or
	// "llm:<model>" when an endpoint produced it; "" in published files.
	// novelapi extension.
	Generator string `json:"generator,omitempty"`
}

// ParamInfo is the protocol's ParameterInfo (candidates.jsonl parameters and
// bundles' old_parameters, docs/protocol.md §1.2, §1.6). Kind is
// inspect's parameter kind name, e.g. "POSITIONAL_OR_KEYWORD"; Default is
// str(default) or nil when the parameter has none.
type ParamInfo struct {
	Name       string  `json:"name"`
	Annotation *string `json:"annotation"`
	Default    *string `json:"default"`
	Kind       string  `json:"kind"`
}

// Provenance records where a bundle and each of its components came from.
// It is novelapi's extension; published files lack it (nil).
type Provenance struct {
	Library     string `json:"library"`               // import name, e.g. "numpy"
	Version     string `json:"version"`               // distribution version (importlib.metadata)
	OldVersion  string `json:"old_version,omitempty"` // version diffed against; "" when none
	Suite       string `json:"suite,omitempty"`       // Debian suite of the environment, e.g. "trixie"
	Environment string `json:"environment,omitempty"` // sandbox environment name, e.g. "trixie-sci"
	SourceFile  string `json:"source_file,omitempty"` // prefix-normalised, "<site-packages>/numpy/..."
	SourceLine  int    `json:"source_line,omitempty"` // 1-based; 0 when unknown
	Kind        string `json:"kind,omitempty"`        // function, class, method
	// Signature is the live call signature, str(inspect.signature(obj)),
	// with positional-only "/" and keyword-only "*" markers, e.g.
	// "(x, /, *, axis=0)"; "" when unknown. Serving shows it next to S.
	Signature string `json:"signature,omitempty"`
	// Aliases lists every other import path of the same object.
	Aliases []string `json:"aliases,omitempty"`
	// Replaces lists older APIs that name this one as their replacement:
	// the deprecated APIs of the same release whose docstrings say so
	// (Extra.Replaces of the candidate), then the paths the library's
	// release notes add (ReplacesNotes).
	Replaces []string `json:"replaces,omitempty"`
	// ReplacesNotes are the paths of Replaces that release notes linked,
	// each with its entry (ExtractRules 19; none before): deprecated APIs
	// the release still has, and ones a release of the diffed span removed
	// (Removed).
	ReplacesNotes []NoteLink `json:"replaces_notes,omitempty"`
	// Instances lists the public names of the objects whose type is this
	// class ("scipy.stats.triang" for scipy.stats.distributions.triang_gen;
	// loguniform and reciprocal for reciprocal_gen), or of the method on
	// them ("scipy.stats.irwinhall.fit"), shortest first: the names users
	// call. Stage 2 records them when there are at most three such objects
	// (py/extract.py public_instances, ExtractRules 2) and takes the
	// examples of a class whose docstring has unfilled %(name)s templates
	// from the first. Empty for other APIs.
	Instances []string `json:"instances,omitempty"`
	// InstanceMethods lists the call forms the first instance's docstring
	// gives in its Methods section ("pdf(x, c, loc=0, scale=1)", at most
	// 16), for classes whose own signature is not how users call them
	// (a scipy.stats distribution's is rv_continuous' constructor), or for
	// an API that is itself such an instance (scipy.stats.irwinhall, whose
	// signature is (*args, **kwds)). Stage 2 records them when it took the
	// examples from the instance (ExtractRules 7) or the API is a callable
	// object that is neither a function nor a class (ExtractRules 8).
	InstanceMethods []string `json:"instance_methods,omitempty"`
	// Extension marks APIs the published protocol would not list ("method",
	// ...): "" means protocol-compatible.
	Extension string `json:"extension,omitempty"`
	// Components maps "S", "E", "M", "C" to how that component was obtained
	// ("introspected", "docstring", "executed_example", "source",
	// "import:<dataset>", ...).
	Components map[string]string `json:"components,omitempty"`
	// Hash is [Bundle.ComputeHash] at the time the bundle was written.
	Hash string `json:"hash,omitempty"`
	// Origin names an imported dataset ("codeupdatearena", "pricoder"); ""
	// for bundles novelapi extracted itself.
	Origin string `json:"origin,omitempty"`
	// Source is where a private library was added from: the path handed
	// to novelapi add, with "@REV" for a git revision (docs/private.md);
	// "" for a Debian library.
	Source string `json:"source,omitempty"`
	// Novelty is [NoveltyPrivate] for an API of a private library served
	// whole (no earlier version to diff against); "" means the API is new
	// or modified as IsModified says.
	Novelty string `json:"novelty,omitempty"`
}

// NoveltyPrivate marks the APIs of a private library added without an
// earlier version: every public API is served, none is known to models
// (docs/private.md §3).
const NoveltyPrivate = "private"

// Private reports whether b comes from a library added with novelapi add
// rather than from a Debian package.
func (b *Bundle) Private() bool { return b.Provenance != nil && b.Provenance.Source != "" }

// ServedExamples returns the examples that may be shown to a model (status
// executed or static), in file order.
func (b *Bundle) ServedExamples() []Example {
	var out []Example
	for _, e := range b.Examples {
		if e.Served() {
			out = append(out, e)
		}
	}
	return out
}

// Names returns the API's fully qualified name followed by its aliases from
// Provenance (if any), without duplicates.
func (b *Bundle) Names() []string {
	names := []string{b.APIName}
	if b.Provenance != nil {
		for _, a := range b.Provenance.Aliases {
			if a != "" && a != b.APIName {
				names = append(names, a)
			}
		}
	}
	return names
}

// PublicInstances returns Provenance.Instances, the public instances users
// call for this class or its method ("scipy.stats.triang" for
// scipy.stats.distributions.triang_gen); nil without provenance.
func (b *Bundle) PublicInstances() []string {
	if b.Provenance == nil {
		return nil
	}
	return b.Provenance.Instances
}

// bundleJSON has Bundle's fields but no methods, so marshalling it does not
// recurse into Bundle.MarshalJSON.
type bundleJSON Bundle

// MarshalJSON encodes b with the published field names, writing nil s_param
// and examples as [] (the published schema has lists there, not null).
func (b Bundle) MarshalJSON() ([]byte, error) {
	v := bundleJSON(b)
	if v.SParam == nil {
		v.SParam = []Parameter{}
	}
	if v.Examples == nil {
		v.Examples = []Example{}
	}
	return jsonl.MarshalNoEscape(v)
}

type mechanismJSON Mechanism

// MarshalJSON encodes m, writing nil references as [].
func (m Mechanism) MarshalJSON() ([]byte, error) {
	v := mechanismJSON(m)
	if v.References == nil {
		v.References = []string{}
	}
	return jsonl.MarshalNoEscape(v)
}

// SplitQualname splits a dotted name at its last dot into the parent path
// and the leaf: "numpy.linalg.matrix_norm" → ("numpy.linalg",
// "matrix_norm"), "pandas.Series.case_when" → ("pandas.Series",
// "case_when"). A name without a dot yields ("", name). The split is purely
// textual; the parent of a method is its class path, not a module.
func SplitQualname(name string) (parent, leaf string) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

// LeafName returns the last dotted segment of name ("numpy.unstack" →
// "unstack"), the name a task description must not contain
// (docs/protocol.md §1.3).
func LeafName(name string) string {
	_, leaf := SplitQualname(name)
	return leaf
}

// TopLevel returns the first dotted segment of name ("scipy.stats.quantile"
// → "scipy"), the top-level package an API belongs to.
func TopLevel(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return name
}

// StringPtr returns a pointer to a copy of s, for filling nullable fields.
func StringPtr(s string) *string { return &s }
