package bundles

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/novelapi/novelapi/sandbox"
)

// DiscoverConfig configures [Discover]. The zero value of every optional
// field works; callers never see it modified.
type DiscoverConfig struct {
	// Library is the library's catalogue name ("numpy", "django"), written
	// to each candidate's library field.
	Library string
	// Import is the top-level import name; "" means Library lower-cased.
	Import string
	// Dist is the distribution name for importlib.metadata; "" means Import.
	Dist string
	// Domain is written to each candidate; "" means [DomainOf](Library).
	Domain string
	// OldEnv is the pre-boundary environment; nil means there is no
	// pre-boundary release and every API is new (no_pre_boundary_release).
	OldEnv *sandbox.Environment
	// NewEnv is the environment whose APIs are diffed against OldEnv. Required.
	NewEnv *sandbox.Environment
	// Diff tunes the diff and filters.
	Diff DiffOptions
	// Logger receives progress; nil means slog.Default().
	Logger *slog.Logger
}

// DiffRules versions the rules of [Diff] whose output a saved candidates
// file depends on: candidates stamped with another version are discovered
// again (docs/changelog.md has each version's change).
const DiffRules = 6

// DiffOptions tunes [Diff].
type DiffOptions struct {
	// ProtocolOnly drops novelapi's extension APIs (methods of classes, and
	// APIs without Python source, which the protocol's no_source filter
	// drops), so the result is the set the published protocol would list.
	// Without it an API without Python source (a ufunc, a C or Cython class
	// or function) that passes the other filters is kept, marked
	// Extra.Extension [ExtensionNoSource].
	ProtocolOnly bool
	// KeepFiltered returns candidates dropped by per-entry filters too, for
	// inspection; their Extra.Other["dropped_by"] names the filter. It also
	// returns the moved-only APIs the protocol drops (§7 "Diff"), marked
	// dropped_by [FilterMoved], with Extra.OldAPIName the old path they were
	// matched to and Extra.Other["matched_by"] the rule ("relocation" or
	// "fuzzy"). Kept records are not counted in Summary.Candidates; moved
	// ones are counted in Summary.MovedOnly, not Summary.Dropped.
	KeepFiltered bool
	// NewIfMovedFrom lists old-version namespaces ("numpy.array_api") whose
	// APIs do not make a new API old: an old entry all of whose paths lie
	// under one of these prefixes (the path itself or below it) is ignored
	// when matching by identity, relocation or fuzzy docstring, so a new API
	// whose only old match is there counts as new (or, if it also has a
	// match elsewhere, is diffed against that one). A match at the same
	// path still counts. A candidate made new this way records the ignored
	// match in Extra.Other["moved_from_experimental"]. Nil means the protocol's rule:
	// every old entry counts (§7 "Diff").
	//
	// This is a novelapi extension for experimental modules such as numpy
	// 1.x's numpy.array_api: numpy 2's numpy.linalg.vector_norm,
	// numpy.linalg.matrix_norm, numpy.vecdot, numpy.concat and
	// numpy.permute_dims match functions of that module, yet a model trained
	// on numpy 1.24-era code calls numpy.linalg.norm and numpy.concatenate,
	// not the array-API names, and the old experimental module was a
	// separate object that code seldom imported.
	NewIfMovedFrom []string
}

// A Summary reports what a discovery saw and why APIs were dropped.
type Summary struct {
	Library     string `json:"library"`
	OldEnv      string `json:"old_env,omitempty"`
	NewEnv      string `json:"new_env"`
	OldVersion  string `json:"old_version,omitempty"`
	NewVersion  string `json:"new_version"`
	OldSeen     int    `json:"old_seen"`     // entries in the old surface
	Seen        int    `json:"seen"`         // entries in the new surface
	Unchanged   int    `json:"unchanged"`    // matched, same signature
	MovedOnly   int    `json:"moved_only"`   // relocated with the same signature (dropped, §7)
	Added       int    `json:"added"`        // new before filters
	ModifiedRaw int    `json:"modified_raw"` // signature-modified before filters
	// Dropped counts novel APIs removed by each filter (§7 "Filters").
	Dropped map[string]int `json:"dropped"`
	// New and Modified count the kept candidates; Extensions how many of
	// them are novelapi's extension methods, Compiled how many have no
	// Python source ([ExtensionNoSource]; counted in Dropped["no_source"]
	// under DiffOptions.ProtocolOnly instead).
	New        int `json:"new"`
	Modified   int `json:"modified"`
	Candidates int `json:"candidates"`
	Extensions int `json:"extensions"`
	Compiled   int `json:"compiled"`
	// WalkFailures lists modules that failed to import, and public names
	// that raised on access, per environment.
	OldWalkFailures []WalkFailure `json:"old_walk_failures,omitempty"`
	NewWalkFailures []WalkFailure `json:"new_walk_failures,omitempty"`
	// BootstrapError says why the library's bootstrap raised, per
	// environment ([Bootstrap]).
	OldBootstrapError string `json:"old_bootstrap_error,omitempty"`
	NewBootstrapError string `json:"new_bootstrap_error,omitempty"`
}

// Filter names used in Summary.Dropped (docs/protocol.md §7).
const (
	FilterPrivate         = "private"
	FilterExtension       = "protocol_only"
	FilterOldWalkFailure  = "old_walk_failure"
	FilterDeprecated      = "deprecated"
	FilterAlias           = "alias"
	FilterDocstring       = "docstring"
	FilterNoSource        = "no_source"
	FilterPlumbing        = "plumbing"
	FilterVendored        = "vendored"
	FilterInternal        = "self_declared_internal"
	FilterOutsidePackage  = "outside_package"
	FilterModuleName      = "module_name"
	FilterSharedDocstring = "shared_docstring"
	FilterCamelCaseCap    = "camelcase_cap"
	// FilterNotExported drops an API without Python source that no module
	// lists in __all__ (novelapi; such APIs are dropped as no_source under
	// DiffOptions.ProtocolOnly).
	FilterNotExported = "not_exported"
	// FilterMoved marks moved-only APIs listed by DiffOptions.KeepFiltered;
	// it never appears in Summary.Dropped (see Summary.MovedOnly).
	FilterMoved = "moved"
)

// DomainOf returns the protocol's domain of a library (§1.9), or
// "data_science" for libraries the table does not list.
func DomainOf(library string) string {
	switch strings.ToLower(library) {
	case "mdanalysis", "ase", "astropy", "deepchem", "pymatgen", "rdkit", "scanpy", "sympy":
		return "ai4science"
	case "diffusers", "torch", "transformers":
		return "dl"
	case "fastmcp", "langgraph":
		return "agent_tool"
	case "django", "fastapi", "flask", "httpx", "pydantic", "sqlalchemy":
		return "swe"
	}
	return "data_science"
}

// Discover runs Stage 1 (docs/protocol.md §7) for one library:
// introspects it in cfg.OldEnv and cfg.NewEnv through runner, in parallel,
// and returns the new and signature-modified APIs, sorted by api_name, with
// a summary. An environment that cannot import the library gives an error
// wrapping [ErrLibraryMissing]; modules failing to import are recorded in
// the summary and their subtrees skipped.
func Discover(ctx context.Context, runner sandbox.Runner, cfg DiscoverConfig) ([]Candidate, Summary, error) {
	if cfg.NewEnv == nil {
		return nil, Summary{}, fmt.Errorf("discover %s: no new environment", cfg.Library)
	}
	if cfg.Library == "" {
		return nil, Summary{}, fmt.Errorf("discover: no library")
	}
	log := cmp.Or(cfg.Logger, slog.Default())
	imp := cmp.Or(cfg.Import, strings.ToLower(cfg.Library))
	imp = strings.Split(imp, ".")[0]
	dist := cmp.Or(cfg.Dist, imp)
	var (
		wg             sync.WaitGroup
		oldS, newS     *Surface
		oldErr, newErr error
	)
	wg.Go(func() {
		log.Info("introspecting", "library", imp, "env", cfg.NewEnv.Name)
		newS, newErr = Introspect(ctx, runner, cfg.NewEnv, imp, dist)
	})
	if cfg.OldEnv != nil {
		wg.Go(func() {
			log.Info("introspecting", "library", imp, "env", cfg.OldEnv.Name)
			oldS, oldErr = Introspect(ctx, runner, cfg.OldEnv, imp, dist)
		})
	}
	wg.Wait()
	if newErr != nil {
		return nil, Summary{}, fmt.Errorf("discover %s: %w", cfg.Library, newErr)
	}
	if oldErr != nil {
		return nil, Summary{}, fmt.Errorf("discover %s: %w", cfg.Library, oldErr)
	}
	cands, sum := Diff(oldS, newS, cfg.Library, cmp.Or(cfg.Domain, DomainOf(cfg.Library)), cfg.Diff)
	sum.NewEnv = cfg.NewEnv.Name
	if cfg.OldEnv != nil {
		sum.OldEnv = cfg.OldEnv.Name
	}
	return cands, sum, nil
}

// Diff compares two surfaces of one library (old may be nil: no
// pre-boundary release) and returns the novel APIs of new after the
// protocol's matching, relocation and filtering rules
// (docs/protocol.md §7), sorted by api_name. It is pure.
func Diff(old, new *Surface, library, domain string, opts DiffOptions) ([]Candidate, Summary) {
	sum := Summary{Library: library, NewVersion: new.Version, Seen: len(new.Entries),
		Dropped: map[string]int{}, NewWalkFailures: new.WalkFailures, NewBootstrapError: new.BootstrapError}
	var oldIdx, stableIdx *surfaceIndex
	unattributed := map[string]bool{}
	if old != nil {
		sum.OldVersion = old.Version
		sum.OldSeen = len(old.Entries)
		sum.OldWalkFailures = old.WalkFailures
		sum.OldBootstrapError = old.BootstrapError
		oldIdx = indexSurface(old, nil)
		for _, p := range old.Unattributed {
			unattributed[p] = true
		}
		if len(opts.NewIfMovedFrom) > 0 {
			stableIdx = indexSurface(old, func(o *SurfaceEntry) bool { return !underPrefixes(o, opts.NewIfMovedFrom) })
		}
	}
	sharedDocs := map[string]int{}
	for i := range new.Entries {
		if d := new.Entries[i].Docstring; d != nil && len(*d) >= 40 {
			sharedDocs[prefix(*d, 400)]++
		}
	}
	var out []Candidate
	for i := range new.Entries {
		e := &new.Entries[i]
		c := Candidate{
			APIName: e.APIName, Kind: e.Kind, Module: e.Module, Signature: deref(e.Signature),
			Parameters: e.Parameters, Docstring: e.Docstring, SourceFile: e.SourceFile,
			Library: library, Domain: domain, NewVersion: new.Version,
			Extra: Extra{ClassRole: e.ClassRole},
		}
		if len(e.Paths) > 1 {
			c.Extra.Aliases = slices.Clone(e.Paths[1:])
		}
		if e.Kind == KindMethod {
			c.Extra.Extension = KindMethod
		} else if !e.HasSource() {
			c.Extra.Extension = ExtensionNoSource
		}
		other := map[string]any{}
		if e.SourceLine != nil {
			other["source_line"] = *e.SourceLine
		}
		if e.DefiningModule != "" {
			other["defining_module"] = e.DefiningModule
		}
		if old == nil {
			c.Extra.NoPreBoundaryRelease = true
			sum.Added++
		} else {
			o, how := oldIdx.match(e)
			if o != nil && how != "fqn" && stableIdx != nil && underPrefixes(o, opts.NewIfMovedFrom) {
				exp := o.APIName
				if o, how = stableIdx.match(e); o == nil {
					other["moved_from_experimental"] = exp
				}
			}
			if !opts.ProtocolOnly && !e.HasSource() && compiledExisted(e, o, how, unattributed) {
				sum.Unchanged++
				continue
			}
			switch {
			case o == nil:
				if f := underFailure(e, old.WalkFailures); f != "" {
					sum.Dropped[FilterOldWalkFailure]++
					continue
				}
				sum.Added++
			case !signatureChanged(o.Parameters, e.Parameters):
				if how != "relocation" && how != "fuzzy" {
					sum.Unchanged++
					continue
				}
				sum.MovedOnly++
				if !opts.KeepFiltered {
					continue
				}
				other["dropped_by"] = FilterMoved
				other["matched_by"] = how
				c.Extra.OldAPIName = o.APIName
				c.Extra.Relocated = !slices.Contains(e.Paths, o.APIName)
			default:
				sum.ModifiedRaw++
				c.IsModified = true
				c.Extra.OldSignature = o.Signature
				c.Extra.OldParameters = o.Parameters
				if c.Extra.OldParameters == nil {
					c.Extra.OldParameters = []ParamInfo{}
				}
				if o.APIName != e.APIName {
					c.Extra.OldAPIName = o.APIName
					c.Extra.Relocated = !slices.Contains(e.Paths, o.APIName)
				}
			}
			v := old.Version
			c.OldVersion = &v
		}
		if other["dropped_by"] == FilterMoved {
			// listed for inspection only; the filters below do not run
		} else if f := entryFilter(e, cmp.Or(new.Library, library), opts, sharedDocs); f != "" {
			sum.Dropped[f]++
			if !opts.KeepFiltered {
				continue
			}
			other["dropped_by"] = f
		}
		if len(other) > 0 {
			c.Extra.Other = map[string]json.RawMessage{}
			for k, v := range other {
				raw, _ := json.Marshal(v)
				c.Extra.Other[k] = raw
			}
		}
		out = append(out, c)
	}
	out = camelCaseCap(out, &sum)
	slices.SortFunc(out, func(a, b Candidate) int { return strings.Compare(a.APIName, b.APIName) })
	linkReplacements(new, out)
	for _, c := range out {
		if c.Extra.Other["dropped_by"] != nil {
			continue
		}
		sum.Candidates++
		if c.IsModified {
			sum.Modified++
		} else {
			sum.New++
		}
		switch c.Extra.Extension {
		case KindMethod:
			sum.Extensions++
		case ExtensionNoSource:
			sum.Compiled++
		}
	}
	return out, sum
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// surfaceIndex holds the old surface's lookup tables (§7 "Diff").
type surfaceIndex struct {
	identity map[string]*SurfaceEntry
	fqn      map[string]*SurfaceEntry
	reloc    map[string]*SurfaceEntry
	byShort  map[string][]*SurfaceEntry
}

func identityKey(e *SurfaceEntry) string {
	if e.HasSource() {
		return e.ShortName() + "|" + path.Base(*e.SourceFile) + "|" + e.Kind
	}
	return e.ShortName() + "|" + paramShape(e.Parameters) + "|" + e.Kind
}

// paramShape is the (name, kind) tuple of the parameters, self dropped.
func paramShape(ps []ParamInfo) string {
	var b strings.Builder
	for _, p := range dropSelf(ps) {
		b.WriteString(p.Name + ":" + p.Kind + ",")
	}
	return b.String()
}

func dropSelf(ps []ParamInfo) []ParamInfo {
	if len(ps) > 0 && (ps[0].Name == "self" || ps[0].Name == "cls") {
		return ps[1:]
	}
	return ps
}

func relocationKeys(e *SurfaceEntry) []string {
	base := e.ShortName() + "|" + e.Kind + "|"
	doc := deref(e.Docstring)
	keys := []string{"a|" + base + paramShape(e.Parameters) + "|" + prefix(doc, 400)}
	if len(doc) >= 40 {
		keys = append(keys, "b|"+base+doc)
	}
	if len(dropSelf(e.Parameters)) >= 2 {
		keys = append(keys, "c|"+base+paramShape(e.Parameters))
	}
	return keys
}

// indexSurface indexes the entries of s for which keep reports true (all
// when keep is nil).
func indexSurface(s *Surface, keep func(*SurfaceEntry) bool) *surfaceIndex {
	ix := &surfaceIndex{identity: map[string]*SurfaceEntry{}, fqn: map[string]*SurfaceEntry{},
		reloc: map[string]*SurfaceEntry{}, byShort: map[string][]*SurfaceEntry{}}
	for i := range s.Entries {
		e := &s.Entries[i]
		if keep != nil && !keep(e) {
			continue
		}
		if _, ok := ix.identity[identityKey(e)]; !ok {
			ix.identity[identityKey(e)] = e
		}
		for _, p := range e.Paths {
			ix.fqn[p+"|"+e.Kind] = e
		}
		for _, k := range relocationKeys(e) {
			if _, ok := ix.reloc[k]; !ok {
				ix.reloc[k] = e
			}
		}
		sk := e.ShortName() + "|" + e.Kind
		ix.byShort[sk] = append(ix.byShort[sk], e)
	}
	return ix
}

// match finds e's counterpart in the old surface and says how: "identity",
// "fqn", "relocation" or "fuzzy"; nil when e is new.
func (ix *surfaceIndex) match(e *SurfaceEntry) (*SurfaceEntry, string) {
	// An identity match at the same path is the common case; prefer the
	// FQN when the identity key is ambiguous (same short name, same file).
	for _, p := range e.Paths {
		if o := ix.fqn[p+"|"+e.Kind]; o != nil {
			return o, "fqn"
		}
	}
	if o := ix.identity[identityKey(e)]; o != nil {
		return o, "identity"
	}
	for _, k := range relocationKeys(e) {
		if o := ix.reloc[k]; o != nil {
			return o, "relocation"
		}
	}
	doc := deref(e.Docstring)
	if doc != "" {
		for _, o := range ix.byShort[e.ShortName()+"|"+e.Kind] {
			if o.Docstring != nil && similarity(prefix(doc, 2000), prefix(*o.Docstring, 2000)) >= 0.92 {
				return o, "fuzzy"
			}
		}
	}
	return nil, ""
}

// underPrefixes reports whether every path of e (its APIName when it has
// none) is one of prefixes or lies below one.
func underPrefixes(e *SurfaceEntry, prefixes []string) bool {
	paths := e.Paths
	if len(paths) == 0 {
		paths = []string{e.APIName}
	}
	for _, p := range paths {
		if !slices.ContainsFunc(prefixes, func(pre string) bool { return p == pre || strings.HasPrefix(p, pre+".") }) {
			return false
		}
	}
	return true
}

var (
	addrRE    = regexp.MustCompile(`0x[0-9a-fA-F]+`)
	envPathRE = regexp.MustCompile(`(/usr|/tmp|/home|/root|/opt|/var|<site-packages>|<dist-packages>)/[^\s'",)>]*`)
)

func normDefault(d *string) string {
	if d == nil {
		return "\x00none"
	}
	s := addrRE.ReplaceAllString(*d, "0xADDR")
	return envPathRE.ReplaceAllString(s, "<ENVPATH>")
}

// signatureChanged reports whether a signature changed in the protocol's
// sense (§7): after dropping self and ignoring annotations, the parameter
// count, or any name, kind or normalised default differs. An old entry with
// no parameters is never changed.
func signatureChanged(old, new []ParamInfo) bool {
	if len(old) == 0 {
		return false
	}
	o, n := dropSelf(old), dropSelf(new)
	if len(o) != len(n) {
		return true
	}
	for i := range o {
		if o[i].Name != n[i].Name || o[i].Kind != n[i].Kind || normDefault(o[i].Default) != normDefault(n[i].Default) {
			return true
		}
	}
	return false
}

// compiledExisted reports whether e, an entry without Python source, is
// an API of the old release whose surface cannot show how it changed: one
// of its paths names a callable the old walk could not attribute (numpy
// 1.x's ufuncs have no __module__), it matched o only by relocation or a
// fuzzy docstring (numpy.add's docstring is numpy.ma.add's), or its old or
// new signature is only (*args, **kwargs), which says nothing of a change
// (numpy 2.2's ufuncs against 2.4's spelled-out signatures).
func compiledExisted(e *SurfaceEntry, o *SurfaceEntry, how string, unattributed map[string]bool) bool {
	if slices.ContainsFunc(append([]string{e.APIName}, e.Paths...), func(p string) bool { return unattributed[p] }) {
		return true
	}
	if o == nil {
		return false
	}
	if how == "relocation" || how == "fuzzy" {
		return true
	}
	return onlyVarArgs(e.Parameters) || onlyVarArgs(o.Parameters)
}

// onlyVarArgs reports whether ps, self dropped, holds only *args and
// **kwargs (or nothing): the signature numpy 2.2 gives its ufuncs, which
// numpy 2.4 spells out.
func onlyVarArgs(ps []ParamInfo) bool {
	for _, p := range dropSelf(ps) {
		if p.Kind != "VAR_POSITIONAL" && p.Kind != "VAR_KEYWORD" {
			return false
		}
	}
	return true
}

// underFailure returns the path of the walk failure that hides e's
// counterpart in the surface failures belong to: a failed module above e's
// module or defining module, or a failed attribute that is one of e's paths
// or the class of one.
func underFailure(e *SurfaceEntry, failures []WalkFailure) string {
	for _, f := range failures {
		if f.Attribute != "" {
			p := f.Path()
			if slices.ContainsFunc(append([]string{e.APIName}, e.Paths...), func(q string) bool { return q == p || strings.HasPrefix(q, p+".") }) {
				return p
			}
			continue
		}
		for _, m := range []string{e.Module, e.DefiningModule} {
			if m == f.Module || strings.HasPrefix(m, f.Module+".") {
				return f.Module
			}
		}
	}
	return ""
}

var (
	deprecatedRE = regexp.MustCompile(`(?i)\bdeprecated\b|will be removed|\buse\b[^.\n]{0,80}\binstead\b`)
	internalRE   = regexp.MustCompile(`(?i)\b(for internal use|internal use only|not part of the public api|this is a private|private (function|method|class|helper|api)|internal (function|method|class|helper|api))\b`)
	plumbingDirs = []string{"_lib", "_internal", "_compat", "_utils", "_vendor", "_vendored", "array_api_compat"}
	moduleNames  = []string{"base", "main", "impl", "internals"}
	// boilerplate docstring openings: inherited from object/builtins or
	// generated (§7 "inherited or boilerplate opening").
	boilerplate = []string{"Initialize self", "Create and return a new object", "Return self", "Call self as a function",
		"Method generated by attrs", "Create new instance of", "An enumeration.", "Built-in", "Helper for pickle",
		"dict() ->", "str(object=", "Abstract base class", "Common base class", "Base class for", "Copy of"}
	sectionRE = regexp.MustCompile(`\n(Parameters|Returns|Examples|Notes|See Also|Args|Arguments)\s*\n`)
)

// preamble returns the docstring's description before its first section.
func preamble(doc string) string {
	if loc := sectionRE.FindStringIndex(doc); loc != nil {
		doc = doc[:loc[0]]
	}
	return prefix(doc, 800)
}

// firstParagraph returns the docstring's summary paragraph.
func firstParagraph(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	return doc
}

// entryFilter returns the name of the first per-entry filter that drops e
// (§7 "Filters"), or "".
func entryFilter(e *SurfaceEntry, library string, opts DiffOptions, sharedDocs map[string]int) string {
	segs := strings.Split(e.APIName, ".")
	for _, s := range segs {
		if strings.HasPrefix(s, "_") {
			return FilterPrivate
		}
	}
	if opts.ProtocolOnly && e.Kind == KindMethod {
		return FilterExtension
	}
	doc := deref(e.Docstring)
	if doc != "" && (deprecatedRE.MatchString(firstParagraph(doc)) || strings.Contains(preamble(doc), ".. deprecated::")) {
		return FilterDeprecated
	}
	if strings.HasPrefix(e.DefiningModule, "typing") {
		return FilterAlias
	}
	if e.Qualname != "" {
		q := e.Qualname[strings.LastIndex(e.Qualname, ".")+1:]
		if q != segs[len(segs)-1] && q != "<lambda>" {
			return FilterAlias
		}
		if q == "<lambda>" {
			return FilterAlias
		}
	}
	if len(strings.TrimSpace(doc)) < 40 {
		return FilterDocstring
	}
	for _, b := range boilerplate {
		if strings.HasPrefix(doc, b) {
			return FilterDocstring
		}
	}
	if !e.HasSource() {
		if opts.ProtocolOnly || e.Kind == KindMethod {
			return FilterNoSource
		}
		return compiledFilter(e, library, doc, sharedDocs)
	}
	src := *e.SourceFile
	for _, d := range plumbingDirs {
		if strings.Contains(src, "/"+d+"/") && !slices.Contains(segs, d) {
			return FilterPlumbing
		}
	}
	if strings.Contains(e.DefiningModule, ".io.clipboard") || strings.Contains(src, "/vendored/") ||
		strings.Contains(src, "/externals/") {
		return FilterVendored
	}
	if internalRE.MatchString(preamble(doc)) {
		return FilterInternal
	}
	top := strings.Split(library, ".")[0]
	if !strings.Contains(src, "/"+strings.ToLower(top)+"/") && !strings.Contains(src, "/"+top+"/") {
		return FilterOutsidePackage
	}
	leaf := e.DefiningModule[strings.LastIndex(e.DefiningModule, ".")+1:]
	if slices.Contains(moduleNames, leaf) {
		return FilterModuleName
	}
	if sharedDocs[prefix(doc, 400)] >= 3 {
		return FilterSharedDocstring
	}
	return ""
}

// compiledFilter applies to an entry without Python source novelapi's
// not_exported rule (none of its paths is in its module's __all__: pandas
// re-imports dozens of Cython helpers into pandas.core modules for its own
// use) and the filters that follow no_source and need no source file:
// self-declared internal,
// defined outside the package or in a base/main/impl/internals module (by
// its defining module), a shared docstring prefix. It returns the filter
// that drops e, or "" when e is kept as an extension ([ExtensionNoSource]).
func compiledFilter(e *SurfaceEntry, library, doc string, sharedDocs map[string]int) string {
	if !e.Exported {
		return FilterNotExported
	}
	if internalRE.MatchString(preamble(doc)) {
		return FilterInternal
	}
	if top, _, _ := strings.Cut(e.DefiningModule, "."); !strings.EqualFold(top, strings.Split(library, ".")[0]) {
		return FilterOutsidePackage
	}
	leaf := e.DefiningModule[strings.LastIndex(e.DefiningModule, ".")+1:]
	if slices.Contains(moduleNames, leaf) {
		return FilterModuleName
	}
	if sharedDocs[prefix(doc, 400)] >= 3 {
		return FilterSharedDocstring
	}
	return ""
}

var camelRE = regexp.MustCompile(`[A-Z][a-z0-9]+$`)

// camelCaseCap applies the protocol's CamelCase-suffix cap (§7): among new
// (not modified) classes, a group of ≥5 sharing a CamelCase suffix keeps
// its top 3 by len(doc) × max(1, #informative params).
func camelCaseCap(cs []Candidate, sum *Summary) []Candidate {
	groups := map[string][]int{}
	for i, c := range cs {
		if c.Kind != KindClass || c.IsModified || c.Extra.Other["dropped_by"] != nil {
			continue
		}
		leaf := c.APIName[strings.LastIndex(c.APIName, ".")+1:]
		suf := camelRE.FindString(leaf)
		if suf == "" || suf == leaf {
			continue
		}
		groups[suf] = append(groups[suf], i)
	}
	drop := map[int]bool{}
	for _, idx := range groups {
		if len(idx) < 5 {
			continue
		}
		score := func(c Candidate) int {
			n := 0
			for _, p := range dropSelf(c.Parameters) {
				if p.Name != "args" && p.Name != "kwargs" && p.Kind != "VAR_POSITIONAL" && p.Kind != "VAR_KEYWORD" {
					n++
				}
			}
			return len(deref(c.Docstring)) * max(1, n)
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			return cmp.Or(cmp.Compare(score(cs[b]), score(cs[a])), strings.Compare(cs[a].APIName, cs[b].APIName))
		})
		for _, i := range idx[3:] {
			drop[i] = true
		}
	}
	if len(drop) == 0 {
		return cs
	}
	out := cs[:0:0]
	for i, c := range cs {
		if drop[i] {
			sum.Dropped[FilterCamelCaseCap]++
			continue
		}
		out = append(out, c)
	}
	return out
}

// similarity returns Python difflib's SequenceMatcher(None, a, b).ratio()
// without its autojunk heuristic: 2·M/(len(a)+len(b)), M the characters in
// the recursively found longest matching blocks (Ratcliff/Obershelp).
func similarity(a, b string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	return 2 * float64(matchingChars(ra, rb)) / float64(len(ra)+len(rb))
}

func matchingChars(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	// Longest common substring by dynamic programming over one row.
	best, bi, bj := 0, 0, 0
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				if cur[j] > best {
					best, bi, bj = cur[j], i-cur[j], j-cur[j]
				}
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	if best == 0 {
		return 0
	}
	return best + matchingChars(a[:bi], b[:bj]) + matchingChars(a[bi+best:], b[bj+best:])
}

// SelectCandidates returns the candidates named in names, in the order of
// cs; an empty names returns cs. Names matching no candidate give an error
// listing them.
func SelectCandidates(cs []Candidate, names []string) ([]Candidate, error) {
	if len(names) == 0 {
		return cs, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []Candidate
	for _, c := range cs {
		if want[c.APIName] {
			out = append(out, c)
			delete(want, c.APIName)
		}
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for n := range want {
			missing = append(missing, n)
		}
		slices.Sort(missing)
		return out, fmt.Errorf("no candidate named %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// replacementRE finds the name a deprecation notice points to: the first
// identifier after "use" ("Please use `trapezoid` instead", "Use
// DataFrame.map instead", "Use :func:`isin` instead of `in1d`").
var replacementRE = regexp.MustCompile("(?i)\\buse\\s+(?::[a-z]+:)?`*([A-Za-z_][A-Za-z0-9_./]*[A-Za-z0-9_])")

// deprecationText returns the part of doc that says the API is deprecated
// (its summary paragraph or its preamble with a ".. deprecated::"
// directive), or "".
func deprecationText(doc string) string {
	if p := firstParagraph(doc); deprecatedRE.MatchString(p) {
		return p + "\n" + preamble(doc)
	}
	if p := preamble(doc); strings.Contains(p, ".. deprecated::") {
		return p[strings.Index(p, ".. deprecated::"):]
	}
	return ""
}

// linkReplacements records in Extra.Replaces of the kept candidates in out
// (sorted by api_name) the import paths of the entries of new whose
// docstrings say they are deprecated and name that candidate as the
// replacement, when the name resolves to exactly one candidate: its api_name
// or an alias, or a dotted suffix of one ("trapezoid" → numpy.trapezoid,
// "DataFrame.map" → pandas.DataFrame.map), a leading import alias read
// with the aliases the surface's docstrings use ([LearnAliases]).
func linkReplacements(new *Surface, out []Candidate) {
	aliases := LearnAliases(surfaceDocs(new))
	bySuffix := map[string][]int{}
	for i := range out {
		if out[i].Extra.Other["dropped_by"] != nil {
			continue
		}
		for _, n := range append([]string{out[i].APIName}, out[i].Extra.Aliases...) {
			segs := strings.Split(n, ".")
			for j := range segs {
				k := strings.Join(segs[j:], ".")
				if !slices.Contains(bySuffix[k], i) {
					bySuffix[k] = append(bySuffix[k], i)
				}
			}
		}
	}
	for i := range new.Entries {
		e := &new.Entries[i]
		if e.Docstring == nil || len(bySuffix[e.APIName]) > 0 {
			continue // no docstring, or itself a candidate
		}
		text := deprecationText(*e.Docstring)
		m := replacementRE.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		name := m[1]
		if strings.Contains(name, "/") {
			continue // "use Series/DataFrame.bfill": which one is not said
		}
		ks := bySuffix[aliases.Expand(name)]
		if len(ks) != 1 || out[ks[0]].APIName == e.APIName {
			continue
		}
		c := &out[ks[0]]
		for _, p := range append([]string{e.APIName}, e.Paths...) {
			if !slices.Contains(c.Extra.Replaces, p) {
				c.Extra.Replaces = append(c.Extra.Replaces, p)
			}
		}
	}
}
