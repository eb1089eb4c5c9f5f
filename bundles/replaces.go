package bundles

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/sandbox"
)

// A NoteLink records an import path of [Provenance.Replaces] that the
// library's release notes linked (docs/protocol.md §7 Stage 2, "release
// notes"): the path, and the entry saying so (its version, file and line;
// the line is 0 on a rendered page).
type NoteLink struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"`
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	// Removed says that the new release no longer has the path: the
	// entry, of a release the diff spans, removed it.
	Removed bool `json:"removed,omitempty"`
}

// A noteProposal is an older import path that release notes say a
// candidate replaces, still to be found in the new release.
type noteProposal struct {
	path string
	note ReleaseNote
	// full says that the entry wrote the path whole, from the library's
	// top-level module on ("np.in1d"), not relative to the new name.
	full bool
	// old and new are the candidate's versions, the span diffed.
	old, new string
}

// noteProposals returns, by api_name of the kept candidates of cs, the
// import paths the release-note replacements reps say each replaces. The
// new name is read with the learned aliases ("np.trapezoid") and, when it
// is a bare leaf, first beside the old one ("`SimpleTestCase.assertFormsetError`
// is deprecated in favor of `assertFormSetError`"); it must resolve, as a
// dotted suffix of an api_name or alias, to exactly one kept candidate.
// An old name that does not start with the library's top-level module is
// read relative to where the new one is written from: "`DataFrame.applymap`
// ... `DataFrame.map`" gives pandas.DataFrame.applymap beside
// pandas.DataFrame.map and pandas.core.frame.DataFrame.applymap beside
// pandas.core.frame.DataFrame.map. Paths that are a candidate's own name
// or alias, or that have a private part ("_helper", "__init__"), are left
// out.
func noteProposals(cs []Candidate, reps []NoteReplacement, aliases Aliases) map[string][]noteProposal {
	if len(reps) == 0 || len(cs) == 0 {
		return nil
	}
	top, _, _ := strings.Cut(cs[0].APIName, ".")
	bySuffix := map[string][]int{}
	known := map[string]bool{}
	for i := range cs {
		if cs[i].Extra.Other["dropped_by"] != nil {
			continue
		}
		for _, n := range append([]string{cs[i].APIName}, cs[i].Extra.Aliases...) {
			known[n] = true
			segs := strings.Split(n, ".")
			for j := range segs {
				k := strings.Join(segs[j:], ".")
				if !slices.Contains(bySuffix[k], i) {
					bySuffix[k] = append(bySuffix[k], i)
				}
			}
		}
	}
	out := map[string][]noteProposal{}
	for _, r := range reps {
		old, nu := aliases.Expand(r.Old), aliases.Expand(r.New)
		forms := []string{nu}
		if !strings.Contains(nu, ".") {
			if i := strings.LastIndexByte(old, '.'); i >= 0 {
				forms = []string{old[:i] + "." + nu, nu}
			}
		}
		k, form := -1, ""
		for _, f := range forms {
			if ks := bySuffix[f]; len(ks) == 1 {
				k, form = ks[0], f
				break
			} else if len(ks) > 1 {
				break
			}
		}
		if k < 0 {
			continue
		}
		c := &cs[k]
		full := old == top || strings.HasPrefix(old, top+".")
		var paths []string
		if full {
			paths = []string{old}
		} else {
			paths = relativePaths(append([]string{c.APIName}, c.Extra.Aliases...), form, old)
		}
		for _, path := range paths {
			if known[path] || privatePath(path) || slices.ContainsFunc(out[c.APIName], func(p noteProposal) bool { return p.path == path }) {
				continue
			}
			out[c.APIName] = append(out[c.APIName], noteProposal{path: path, note: r.Note, full: full, old: deref(c.OldVersion), new: c.NewVersion})
		}
	}
	return out
}

// relativePaths reads old beside the names (a candidate's api_name, then
// its aliases) that end in form: with the prefix the api_name has before
// form, and the shortest one's ("pandas." of pandas.Series.ffill, not one
// of the 40 modules that import Series, pandas.io.sql.Series.ffill).
func relativePaths(names []string, form, old string) []string {
	var out []string
	shortest := ""
	for i, n := range names {
		if n != form && !strings.HasSuffix(n, "."+form) {
			continue
		}
		p := n[:len(n)-len(form)] + old
		if i == 0 {
			out = append(out, p)
		}
		if shortest == "" || len(p) < len(shortest) {
			shortest = p
		}
	}
	if shortest != "" && !slices.Contains(out, shortest) {
		out = append(out, shortest)
	}
	return out
}

// inSpan reports whether version v lies within (old, new]; an empty old
// or new bounds nothing on its side, an empty v is in no span.
func inSpan(v, old, new string) bool {
	return v != "" && (old == "" || pyversion.CompareStrings(v, old) > 0) && (new == "" || pyversion.CompareStrings(v, new) <= 0)
}

// privatePath reports whether a dotted path has a part starting with "_".
func privatePath(p string) bool {
	for s := range strings.SplitSeq(p, ".") {
		if strings.HasPrefix(s, "_") {
			return true
		}
	}
	return false
}

// resolveNoteLinks keeps, of the proposals by api_name, the paths that
// resolve in env (py/oldnames.py, one sandbox run after the library's
// bootstrap): the deprecated APIs the new release still has. A path it
// does not resolve is kept, marked Removed, only when the entry wrote it
// whole and is of a release within the candidate's span (old, new]: the
// old release had the name ("numpy.in1d has been deprecated since NumPy
// 2.0 and is now removed in favor of numpy.isin", 2.4.0, for 2.2 → 2.4);
// a name removed before the old release, or one read relative to the new
// name, shows nothing the old release had. The error is the sandbox's, or
// the script's when it found nothing and failed.
func resolveNoteLinks(ctx context.Context, runner sandbox.Runner, env *sandbox.Environment, props map[string][]noteProposal) (map[string][]NoteLink, error) {
	if len(props) == 0 {
		return nil, nil
	}
	type api struct {
		APIName string   `json:"api_name"`
		Old     []string `json:"old"`
	}
	var in struct {
		Bootstrap string `json:"bootstrap,omitempty"`
		APIs      []api  `json:"apis"`
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		a := api{APIName: n}
		for _, p := range props[n] {
			a.Old = append(a.Old, p.path)
		}
		in.APIs = append(in.APIs, a)
	}
	in.Bootstrap = Bootstrap(names[0])
	data, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	res, err := runner.Run(ctx, sandbox.Spec{
		Environment: env,
		Files: []sandbox.File{
			{Path: "oldnames.py", Data: script("oldnames.py")},
			{Path: "extract.py", Data: script("extract.py")},
			{Path: "pyobj.py", Data: script("pyobj.py")},
			{Path: "mine.py", Data: script("mine.py")},
			{Path: "reach.py", Data: script("reach.py")},
			{Path: "names.json", Data: data},
		},
		Argv:   []string{"python3", "-I", "-B", sandbox.JobDir + "/oldnames.py", sandbox.JobDir + "/names.json", sandbox.OutDir + "/found.jsonl"},
		Env:    threadEnv,
		Limits: sandbox.Limits{Wall: 5 * time.Minute, Memory: 4 << 30, PIDs: 256, OutSize: 16 << 20},
	})
	if err != nil {
		return nil, fmt.Errorf("resolve release-note replacements in %s: %w", env.Name, err)
	}
	out := map[string][]NoteLink{}
	for line := range bytes.SplitSeq(res.Outputs["found.jsonl"], []byte("\n")) {
		var rec struct {
			APIName string   `json:"api_name"`
			Found   []string `json:"found"`
		}
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		for _, p := range props[rec.APIName] {
			found := slices.Contains(rec.Found, p.path)
			if found || p.full && inSpan(p.note.Version, p.old, p.new) {
				out[rec.APIName] = append(out[rec.APIName], NoteLink{Path: p.path, Version: p.note.Version, File: p.note.File,
					Line: p.note.Line, Removed: !found})
			}
		}
	}
	if len(out) == 0 && res.ExitCode != 0 {
		return nil, fmt.Errorf("resolve release-note replacements in %s: exit %d: %s", env.Name, res.ExitCode, tail(res.Stderr, 300))
	}
	return out, nil
}

// aliasTexts yields the texts the aliases of release notes are learned
// from: the candidates' docstrings and the import lines of d's pages.
func aliasTexts(cs []Candidate, d *Docs) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range cs {
			if cs[i].Docstring != nil && !yield(*cs[i].Docstring) {
				return
			}
		}
		if d == nil {
			return
		}
		for i := range d.pages {
			if !yield(d.pages[i].imports) {
				return
			}
		}
	}
}

// NoteLinks returns, by api_name of the kept candidates of cs, the older
// import paths that d's release notes say each replaces and that env
// still resolves ([Docs.Replacements], docs/protocol.md §7 Stage 2):
// numpy.fix for numpy.trunc when numpy.trunc is novel. One sandbox run;
// nil when d has no such notes. The error is the sandbox's.
func NoteLinks(ctx context.Context, runner sandbox.Runner, env *sandbox.Environment, cs []Candidate, d *Docs) (map[string][]NoteLink, error) {
	reps := d.Replacements()
	if len(reps) == 0 {
		return nil, nil
	}
	return resolveNoteLinks(ctx, runner, env, noteProposals(cs, reps, LearnAliases(aliasTexts(cs, d))))
}
