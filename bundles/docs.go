package bundles

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/internal/pyversion"
	"github.com/novelapi/novelapi/sandbox"
)

// Docs are the documentation pages and release notes of one library, read
// from the files of its Debian -doc package (see [ReadDocs]). A nil *Docs
// has no pages and no notes. Docs are read-only once read and safe for
// concurrent use.
type Docs struct {
	// Packages are the Debian packages the files came from, as
	// "NAME@VERSION", in the order read.
	Packages []string
	pages    []docPage
	notes    []ReleaseNote
	byIdent  map[string][]blockRef // identifier → blocks that use it
}

type docPage struct {
	pkg     string // Debian package
	file    string // installed path, "/usr/share/doc/..."
	text    string // the page's prose, lowercased, for the API-name test
	imports string // the page's import lines, one per line
	blocks  []docBlock
}

type docBlock struct {
	lang, code string
	line       int
	file       string // the included file it is in; "" for the page itself
}

type blockRef struct{ page, block int }

// A DocBlock is one code block of a documentation page offered to Stage 2
// as a candidate example of an API: the block as written (Lang its
// language, "" for a reST literal block), the import lines of its page
// (what an example of the page may use without importing it), the code
// blocks before it on the page (those that bind names it uses are its
// setup, as a reader of the page runs them first) and where it is.
type DocBlock struct {
	Code    string         `json:"code"`
	Lang    string         `json:"lang"`
	Imports string         `json:"imports,omitempty"`
	Setup   []string       `json:"setup,omitempty"`
	Source  string         `json:"source"`
	Origin  *ExampleOrigin `json:"origin"`
}

// maxSetupBlocks bounds the earlier blocks of a page offered as setup.
const maxSetupBlocks = 40

// A ReleaseNote is one entry of a library's release notes: the version it
// came in, its text with markup removed, and where it is.
type ReleaseNote struct {
	Version string
	Text    string
	File    string
	Line    int
	// marked is the text of a rendered page's entry with its code spans
	// (<code>, unresolved cross-references) written in backticks; "" when
	// Text keeps its markup (reST, Markdown).
	marked string
}

// MaxNoteChars bounds a release-note entry kept as Mechanism.ChangelogNotes
// (docs/protocol.md §1.2: changelog_notes is at most 1,000 characters).
const MaxNoteChars = 1000

// docTries is how many documentation blocks are offered per API.
const docTries = 3

var (
	directiveRE = regexp.MustCompile(`^(\s*)\.\.\s+(code-block|sourcecode|code|doctest|testcode|ipython)::\s*(\S*)\s*$`)
	fenceRE     = regexp.MustCompile("^(\\s*)(`{3,}|~{3,})\\s*([\\w+.-]*)")
	optionRE    = regexp.MustCompile(`^:[\w-]+:`)
	commentRE   = regexp.MustCompile(`^\s*\.\.(\s+[^:]*)?$`) // a reST comment, not a directive
	identRE     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	importRE    = regexp.MustCompile(`^(?:>>> )?((?:from\s+[\w.]+\s+import\s+[\w, ()]+)|(?:import\s+[\w., ]+(?:\s+as\s+\w+)?))\s*$`)
	// A release-notes file: changelog_20.rst, whatsnew/1.14.rst,
	// release_3.4.rst, NEWS, CHANGES.
	notesFileRE = regexp.MustCompile(`(?i)(changelog|changes|whats_?new|release|news|history)`)
	versionRE   = regexp.MustCompile(`\b[vV]?(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?)\b`)
	mdLinkRE    = regexp.MustCompile(`\[([^\]]+)\]\([^)\s]+\)`)
	roleRE      = regexp.MustCompile("(?::[\\w:.-]+:)?`+~?([^`<]*?)(?:\\s*<[^>]*>)?`+_{0,2}")
)

// ReadDocs reads the documentation in dir, a directory of the Debian
// package pkg at version that it installs at installedAt
// ("/usr/share/doc/python-sqlalchemy-doc"): see [Docs.Read].
func ReadDocs(dir, installedAt, pkg, version string) (*Docs, error) {
	d := &Docs{}
	if err := d.Read(dir, installedAt, pkg, version); err != nil {
		return nil, err
	}
	return d, nil
}

// Read adds the documentation in dir, a directory of the Debian package
// pkg at version that it installs at installedAt: reST pages (*.rst,
// *.rst.txt, *.txt under _sources) and Markdown pages (*.md, *.md.txt)
// with their code blocks, and the release notes among them (files whose
// path names a changelog, changes, what's new, release or news, gzipped or
// not). Pages Sphinx rendered (*.html) are read only when dir has no reST
// sources of them (html/_sources, rst/): numpy's and networkx's packages
// ship HTML alone. Rendered docstrings (generated/, _modules/) are never
// read. A directory without pages adds nothing; a missing one is an error.
func (d *Docs) Read(dir, installedAt, pkg, version string) error {
	if d.byIdent == nil {
		d.byIdent = map[string][]blockRef{}
	}
	d.Packages = append(d.Packages, pkg+"@"+version)
	var sources, pages []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			switch e.Name() {
			case "_static", "_images", "_downloads", "_modules", "generated", "jupyter_execute", "_build":
				return filepath.SkipDir
			}
			return nil
		}
		name := strings.TrimSuffix(e.Name(), ".gz")
		rel, _ := filepath.Rel(dir, path)
		notes := notesFileRE.MatchString(rel)
		switch {
		case name == "changelog.Debian":
		case strings.HasSuffix(name, ".html"):
			if name != "genindex.html" && name != "search.html" && name != "py-modindex.html" {
				pages = append(pages, path)
			}
		case strings.HasSuffix(name, ".md"), strings.HasSuffix(name, ".md.txt"), strings.HasSuffix(name, ".rst"),
			strings.HasSuffix(name, ".rst.txt"), strings.HasSuffix(name, ".txt") && strings.Contains(path, "_sources"),
			notes && !strings.Contains(name, "."), name == "NEWS", name == "changelog":
			sources = append(sources, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The rendered pages' own sources (html/_sources, SQLAlchemy's rst/)
	// say the same with line numbers.
	rendered := !slices.ContainsFunc(sources, func(p string) bool {
		return strings.Contains(p, "/_sources/") || strings.Contains(p, "/rst/")
	})
	all := sources
	if rendered {
		all = append(all, pages...)
	}
	for _, path := range all {
		html := strings.HasSuffix(strings.TrimSuffix(path, ".gz"), ".html")
		rel, _ := filepath.Rel(dir, path)
		file := strings.TrimSuffix(installedAt, "/") + "/" + filepath.ToSlash(rel)
		notes := notesFileRE.MatchString(rel)
		text, err := readMaybeGzip(path)
		if err != nil {
			return fmt.Errorf("read docs of %s: %w", pkg, err)
		}
		name := strings.TrimSuffix(filepath.Base(path), ".gz")
		switch {
		case html:
			blocks, prose, entries := htmlPage(text, notes, file)
			if notes {
				d.notes = append(d.notes, entries...)
				continue
			}
			d.addBlocks(pkg, file, prose, blocks)
		case notes:
			d.notes = append(d.notes, releaseNotes(text, file)...)
		default:
			md := strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".md.txt")
			var included map[int][]docBlock
			if !md {
				included = rstIncludes(text, filepath.Dir(path), filepath.Dir(file))
			}
			d.addPage(pkg, file, text, md, included)
		}
	}
	return nil
}

// readMaybeGzip returns the text of path, gunzipped when it ends in .gz.
func readMaybeGzip(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, maxDocFile))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return string(data), nil
}

// maxDocFile bounds the bytes read of one documentation file.
const maxDocFile = 8 << 20

var (
	includeRE = regexp.MustCompile(`^\.\.\s+include::\s+(\S+)\s*$`)
	// A link to the page of setup code a page's doctests run first
	// (SQLAlchemy: ":doc:`View the ORM setup for this page <_plain_setup>`").
	setupDocRE = regexp.MustCompile(":doc:`[^`<]*<(_\\w*setup)>`")
)

// rstIncludes returns the code blocks of the files a reST page includes
// (".. include:: nav.rst", one level, files beside the page or below it)
// or links as its setup (":doc:`... <_plain_setup>`"), by the 1-based line
// of the directive or link. dir is the
// page's directory on disk, at its installed path.
func rstIncludes(text, dir, at string) map[int][]docBlock {
	var out map[int][]docBlock
	for i, l := range strings.Split(text, "\n") {
		m := includeRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			if m = setupDocRE.FindStringSubmatch(l); m != nil {
				m[1] += ".rst"
			}
		}
		if m == nil || strings.Contains(m[1], "..") || strings.HasPrefix(m[1], "/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, m[1]))
		if err != nil || len(data) > maxDocFile {
			continue
		}
		bs := rstBlocks(string(data))
		for j := range bs {
			bs[j].file = at + "/" + filepath.ToSlash(m[1])
		}
		if out == nil {
			out = map[int][]docBlock{}
		}
		out[i+1] = bs
	}
	return out
}

func (d *Docs) addPage(pkg, file, text string, md bool, included map[int][]docBlock) {
	var blocks []docBlock
	if md {
		blocks = markdownBlocks(text)
	} else {
		blocks = rstBlocks(text)
	}
	if len(included) > 0 {
		lines := make([]int, 0, len(included))
		for l := range included {
			lines = append(lines, l)
		}
		slices.Sort(lines)
		var merged []docBlock
		k := 0
		for _, b := range blocks {
			for k < len(lines) && lines[k] < b.line {
				merged = append(merged, included[lines[k]]...)
				k++
			}
			merged = append(merged, b)
		}
		for ; k < len(lines); k++ {
			merged = append(merged, included[lines[k]]...)
		}
		blocks = merged
	}
	d.addBlocks(pkg, file, strings.ToLower(text), blocks)
}

// addBlocks adds a page's code blocks; prose is its text, lowercased.
func (d *Docs) addBlocks(pkg, file, prose string, blocks []docBlock) {
	if len(blocks) == 0 {
		return
	}
	var imports []string
	for _, b := range blocks {
		for l := range strings.SplitSeq(b.code, "\n") {
			if m := importRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil && !slices.Contains(imports, m[1]) {
				imports = append(imports, m[1])
			}
		}
	}
	p := docPage{pkg: pkg, file: file, text: prose, imports: strings.Join(imports, "\n"), blocks: blocks}
	pi := len(d.pages)
	d.pages = append(d.pages, p)
	for bi, b := range blocks {
		seen := map[string]bool{}
		for _, id := range identRE.FindAllString(b.code, -1) {
			if !seen[id] {
				seen[id] = true
				d.byIdent[id] = append(d.byIdent[id], blockRef{pi, bi})
			}
		}
	}
}

// Pages reports how many pages with code blocks d has.
func (d *Docs) Pages() int {
	if d == nil {
		return 0
	}
	return len(d.pages)
}

// Notes reports how many release-note entries d has.
func (d *Docs) Notes() int {
	if d == nil {
		return 0
	}
	return len(d.notes)
}

// Blocks returns up to n code blocks that use the API's leaf name, best
// first: blocks whose page names the API by its dotted path (the class
// and leaf for a method, "Select.where") before the rest, blocks that call
// the leaf ("leaf(") before those that only mention it, then shorter
// first. A method gets blocks only from pages that name it with its class,
// or blocks that name its class and use the leaf as an attribute
// ("TypeAdapter(Node).dump_python(...)"): its leaf alone ("where", "get")
// names too many things. Nil for a nil d.
func (d *Docs) Blocks(apiName string, n int) []DocBlock {
	if d == nil || n <= 0 {
		return nil
	}
	parent, leaf := SplitQualname(apiName)
	refs := d.byIdent[leaf]
	if len(refs) == 0 {
		return nil
	}
	_, owner := SplitQualname(parent)
	qual := strings.ToLower(owner + "." + leaf)
	method := owner != "" && owner[0] >= 'A' && owner[0] <= 'Z'
	type scored struct {
		ref   blockRef
		score int
		size  int
	}
	var cands []scored
	for _, r := range refs {
		p := &d.pages[r.page]
		b := p.blocks[r.block]
		s := 0
		named := strings.Contains(p.text, strings.ToLower(apiName)) || strings.Contains(p.text, qual)
		if !named && method && !usesClassMethod(b.code, owner, leaf) {
			continue
		}
		if !named {
			s += 2
		}
		if !strings.Contains(b.code, leaf+"(") {
			s++
		}
		cands = append(cands, scored{r, s, len(b.code)})
	}
	slices.SortStableFunc(cands, func(a, b scored) int { return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.size, b.size)) })
	var out []DocBlock
	for _, c := range cands[:min(n, len(cands))] {
		p := &d.pages[c.ref.page]
		b := p.blocks[c.ref.block]
		var setup []string
		for _, e := range p.blocks[max(0, c.ref.block-maxSetupBlocks):c.ref.block] {
			setup = append(setup, e.code)
		}
		out = append(out, DocBlock{Code: b.code, Lang: b.lang, Imports: p.imports, Setup: setup, Source: SourceDocs,
			Origin: &ExampleOrigin{Package: p.pkg, File: cmp.Or(b.file, p.file), Line: b.line}})
	}
	return out
}

// usesClassMethod reports whether code names the class owner and uses leaf
// as an attribute (".leaf"), as a block does that makes an instance and
// calls the method on it.
func usesClassMethod(code, owner, leaf string) bool {
	return owner != "" && containsName(code, "."+leaf) && slices.Contains(identRE.FindAllString(code, -1), owner)
}

// Note returns the release-note entry that names the API, or false: an
// entry naming its full dotted path, its class and leaf ("Select.where"),
// or for a function its leaf written as code (“leaf“, leaf()). Among
// several (docs/protocol.md §7 Stage 2, "release notes"):
//   - an entry of a version within (oldVersion, newVersion] ("" bounds
//     nothing) wins over one outside it;
//   - prose wins over a line of a "pull requests merged" or "issues closed"
//     list ("#30059: BUG: Fix np.strings.slice if stop=None…"), which says
//     that a fix happened, not what the API is;
//   - within the span, the oldest version wins: the release the API or
//     its change came in ("New function numpy.strings.slice" of 2.3.0, not
//     a 2.3.5 fix); outside it, the newest at most newVersion.
//
// An entry of a version after newVersion is never returned.
func (d *Docs) Note(apiName, oldVersion, newVersion string) (ReleaseNote, bool) {
	if d == nil || len(d.notes) == 0 {
		return ReleaseNote{}, false
	}
	parent, leaf := SplitQualname(apiName)
	_, owner := SplitQualname(parent)
	pats := []string{apiName}
	if owner != "" {
		pats = append(pats, owner+"."+leaf)
	}
	if !(owner != "" && owner[0] >= 'A' && owner[0] <= 'Z') {
		pats = append(pats, leaf+"()", "`"+leaf+"`", "."+leaf+"`", leaf+"(")
	}
	type rank struct{ in, prose bool }
	var best *ReleaseNote
	var bestRank rank
	for i := range d.notes {
		n := &d.notes[i]
		if !slices.ContainsFunc(pats, func(p string) bool { return containsName(n.Text, p) }) {
			continue
		}
		if newVersion != "" && n.Version != "" && pyversion.CompareStrings(n.Version, newVersion) > 0 {
			continue
		}
		r := rank{
			in:    oldVersion == "" || (n.Version != "" && pyversion.CompareStrings(n.Version, oldVersion) > 0),
			prose: !pullRequestLineRE.MatchString(n.Text),
		}
		if best != nil {
			c := pyversion.CompareStrings(n.Version, best.Version)
			switch {
			case r.in != bestRank.in:
				if !r.in {
					continue
				}
			case r.prose != bestRank.prose:
				if !r.prose {
					continue
				}
			case r.in && oldVersion != "" && c >= 0, (!r.in || oldVersion == "") && c <= 0:
				continue
			}
		}
		best, bestRank = n, r
	}
	if best == nil {
		return ReleaseNote{}, false
	}
	out := *best
	out.Text = CleanMarkup(out.Text)
	return out, true
}

// pullRequestLineRE matches an entry of a release's list of merged pull
// requests or closed issues: "#30059: BUG: …", "#19683: BUG/TST: …".
var pullRequestLineRE = regexp.MustCompile(`^#\d+:\s`)

// containsName reports whether s contains name not followed by an
// identifier character ("BaseModel.model_validate" is not in
// "BaseModel.model_validate_strings").
func containsName(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		end := i + j + len(name)
		if end == len(s) || !isIdentByte(s[end]) || !isIdentByte(name[len(name)-1]) {
			return true
		}
		i = end
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// CleanMarkup returns reST or Markdown text as plain prose: roles,
// literals and links keep their text (":meth:`.Select.where`" →
// ".Select.where", "[#12411](https://...)" → "#12411"), runs of white
// space become one space.
func CleanMarkup(s string) string {
	s = mdLinkRE.ReplaceAllString(s, "$1")
	s = roleRE.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "**", "")
	return strings.Join(strings.Fields(s), " ")
}

// rstBlocks returns the code blocks of a reST page: the directives
// code-block, sourcecode, code, doctest, testcode and ipython (their
// options dropped) and the literal blocks after a paragraph ending in
// "::", each with its 1-based line.
func rstBlocks(text string) []docBlock {
	lines := strings.Split(text, "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := directiveRE.FindStringSubmatch(line); m != nil {
			lang := strings.ToLower(m[3])
			if lang == "" && m[2] == "doctest" {
				lang = "pycon"
			}
			body, j := indentedBlock(lines, i, len(m[1]))
			k := 0
			for k < len(body) && (strings.TrimSpace(body[k]) == "" || optionRE.MatchString(strings.TrimSpace(body[k]))) {
				k++
			}
			if code := strings.Trim(strings.Join(body[k:], "\n"), "\n"); code != "" {
				out = append(out, docBlock{lang: lang, code: code, line: i + 2 + k})
			}
			i = j - 1
			continue
		}
		s := strings.TrimRight(line, " \t")
		if commentRE.MatchString(s) {
			// A comment holding doctest lines: setup the page runs
			// without showing it (".. setup code not for display").
			body, j := indentedBlock(lines, i, len(line)-len(strings.TrimLeft(line, " ")))
			k := 0
			for k < len(body) && strings.TrimSpace(body[k]) == "" {
				k++
			}
			if k < len(body) && strings.HasPrefix(strings.TrimSpace(body[k]), ">>>") {
				out = append(out, docBlock{lang: "pycon", code: strings.Trim(strings.Join(body[k:], "\n"), "\n"), line: i + 2 + k})
			}
			i = j - 1
			continue
		}
		if strings.HasSuffix(s, "::") && !strings.HasPrefix(strings.TrimSpace(s), "..") && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "" {
			base := len(line) - len(strings.TrimLeft(line, " "))
			body, j := indentedBlock(lines, i, base)
			k := 0
			for k < len(body) && strings.TrimSpace(body[k]) == "" {
				k++
			}
			if code := strings.Trim(strings.Join(body[k:], "\n"), "\n"); code != "" {
				out = append(out, docBlock{code: code, line: i + 2 + k})
			}
			i = j - 1
		}
	}
	return out
}

// indentedBlock returns the lines after lines[i] indented deeper than
// base (blank lines inside kept), dedented, and the index after them.
func indentedBlock(lines []string, i, base int) ([]string, int) {
	j := i + 1
	var body []string
	for ; j < len(lines); j++ {
		l := lines[j]
		if strings.TrimSpace(l) != "" && len(l)-len(strings.TrimLeft(l, " \t")) <= base {
			break
		}
		body = append(body, l)
	}
	for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
		body = body[:len(body)-1]
	}
	return dedent(body), j
}

// dedent removes the indentation common to the non-blank lines.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			l = l[common:]
		} else if strings.TrimSpace(l) == "" {
			l = ""
		}
		out[i] = l
	}
	return out
}

// markdownBlocks returns the fenced code blocks of a Markdown page
// (CommonMark 0.31 §4.5), each with its 1-based line.
func markdownBlocks(text string) []docBlock {
	lines := strings.Split(text, "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		fence := m[2]
		j := i + 1
		var body []string
		for ; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), fence); j++ {
			body = append(body, lines[j])
		}
		k := 0
		for k < len(body) && strings.TrimSpace(body[k]) == "" {
			k++
		}
		if code := strings.Trim(strings.Join(dedent(body[k:]), "\n"), "\n"); code != "" {
			out = append(out, docBlock{lang: strings.ToLower(m[3]), code: code, line: i + 2 + k})
		}
		i = j
	}
	return out
}

// releaseNotes returns the entries of a release-notes page: SQLAlchemy's
// ".. change::" directives under ".. changelog:: :version: V", and
// otherwise the bullet items and paragraphs under a heading (reST or
// Markdown) or file name that carries a version.
func releaseNotes(text, file string) []ReleaseNote {
	var out []ReleaseNote
	fileVersion := ""
	if m := versionRE.FindStringSubmatch(filepath.Base(file)); m != nil {
		fileVersion = m[1]
	}
	version := fileVersion
	lines := strings.Split(text, "\n")
	var cur []string
	start := 0
	flush := func() {
		if t := strings.TrimSpace(strings.Join(cur, " ")); len(strings.Fields(t)) >= 4 {
			out = append(out, ReleaseNote{Version: version, Text: t, File: file, Line: start})
		}
		cur = nil
	}
	inFence := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		s := strings.TrimSpace(l)
		if strings.HasPrefix(s, "```") || strings.HasPrefix(s, "~~~") {
			flush()
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		switch {
		case strings.HasPrefix(s, ">>>") || strings.HasPrefix(s, "..."):
			// doctest lines in a note are code, not prose
		case strings.HasPrefix(s, ".. changelog::"):
			flush()
		case strings.HasPrefix(s, ":version:"):
			if m := versionRE.FindStringSubmatch(s); m != nil {
				version = m[1]
			}
		case strings.HasPrefix(s, ".. change::"):
			flush()
			start = i + 1
		case optionRE.MatchString(s):
		case i+1 < len(lines) && isUnderline(lines[i+1]) && s != "":
			flush()
			version = headingVersion(fileVersion, version, s)
			i++
		case isUnderline(l):
		case strings.HasPrefix(s, "#"): // a Markdown heading: "## v2.14.1 (2026-10-11)"
			flush()
			version = headingVersion(fileVersion, version, s)
		case s == "":
			if len(cur) > 0 && !strings.HasPrefix(strings.TrimSpace(lines[max(0, i-1)]), ".. change::") {
				flush()
			}
		case strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* "):
			flush()
			start = i + 1
			cur = append(cur, s[2:])
		case strings.HasPrefix(s, ".. "):
		default:
			if len(cur) == 0 {
				start = i + 1
			}
			cur = append(cur, s)
		}
	}
	flush()
	return out
}

// headingVersion returns the version of the entries under a heading:
// the version the heading carries, else the current one. In a file whose
// name carries a version (pandas' v2.2.0.rst, numpy's 2.0.0-notes.html)
// a heading's version counts only when it is that version or one of its
// releases ("2.2.1" in v2.2.rst): the others are of what the release
// needs or supports ("Increased minimum versions for dependencies ...
// 2022.7", "Python 3.13 support").
func headingVersion(fileVersion, current, heading string) string {
	m := versionRE.FindStringSubmatch(heading)
	if m == nil {
		return current
	}
	if fileVersion != "" && m[1] != fileVersion && !strings.HasPrefix(m[1], fileVersion+".") {
		return current
	}
	return m[1]
}

func isUnderline(l string) bool {
	s := strings.TrimSpace(l)
	if len(s) < 3 {
		return false
	}
	return strings.Trim(s, "=-~^\"'`#*+") == ""
}

// fileOwners maps the files of an environment to the Debian packages that
// installed them, read once from the rootfs's dpkg lists. Safe for
// concurrent use.
type fileOwners struct {
	root   string
	once   sync.Once
	owners map[string]string
}

func newFileOwners(root string) *fileOwners { return &fileOwners{root: root} }

// owner returns the package that installed path (a path inside the
// environment); "" when none did or the lists cannot be read.
func (o *fileOwners) owner(path string) string {
	o.once.Do(func() {
		o.owners = map[string]string{}
		lists, _ := filepath.Glob(filepath.Join(o.root, "var/lib/dpkg/info/*.list"))
		for _, l := range lists {
			pkg := strings.TrimSuffix(filepath.Base(l), ".list")
			pkg, _, _ = strings.Cut(pkg, ":") // multi-arch "libfoo:amd64"
			f, err := os.Open(l)
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if p := sc.Text(); strings.HasSuffix(p, ".py") {
					o.owners[p] = pkg
				}
			}
			f.Close()
		}
	})
	return o.owners[path]
}

// exampleSources returns the distinct sources of es in order.
func exampleSources(es []Example) []string {
	var out []string
	for _, e := range es {
		if s := cmp.Or(e.Source, SourceDoctest); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// LibraryDocs fetches and reads the documentation of library for
// extraction in env ([debenv.Store.LibraryDocs]): its Debian -doc package
// of env's suite, unpacked beside the environments, and the documentation
// its own packages install in env (/usr/share/doc/PACKAGE: networkx's
// pages, pydantic's changelog). Nil when there is none. When the -doc
// package cannot be had, the error comes with the Docs read from env.
func LibraryDocs(ctx context.Context, store *debenv.Store, env *sandbox.Environment, library string, cfg debenv.IndexConfig) (*Docs, error) {
	ps, ferr := store.LibraryDocs(ctx, env, library, cfg)
	if len(ps) == 0 {
		return nil, ferr
	}
	d := &Docs{}
	for _, p := range ps {
		if err := d.Read(p.Dir, p.InstalledAt, p.Name, p.Version); err != nil {
			return nil, fmt.Errorf("docs of %s: %w", library, err)
		}
	}
	return d, ferr
}

// Key names d for stamps: its Packages joined by ",", or "" for nil.
func (d *Docs) Key() string {
	if d == nil {
		return ""
	}
	return strings.Join(d.Packages, ",")
}
