package bundles_test

import (
	"strings"
	"testing"

	"github.com/novelapi/novelapi/bundles"
)

// The documentation in testdata/docs is real (python-sqlalchemy-doc,
// trixie; see its README).
func readSQLAlchemyDocs(t *testing.T) *bundles.Docs {
	t.Helper()
	d, err := bundles.ReadDocs("testdata/docs/python-sqlalchemy-doc", "/usr/share/doc/python-sqlalchemy-doc", "python-sqlalchemy-doc", "2.0.40+ds1-1")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReadDocs_PagesAndNotes(t *testing.T) {
	d := readSQLAlchemyDocs(t)
	if d.Pages() != 1 {
		t.Errorf("pages = %d; want 1 (the rendered HTML is not read, the changelog is notes)", d.Pages())
	}
	if d.Notes() < 8 {
		t.Errorf("notes = %d; want each .. change:: of the changelog excerpt", d.Notes())
	}
}

func TestDocs_Blocks(t *testing.T) {
	d := readSQLAlchemyDocs(t)
	bs := d.Blocks("sqlalchemy.sql.expression.Select.with_only_columns", 3)
	if len(bs) != 1 {
		t.Fatalf("blocks = %+v; want the one block of large_collections.rst", bs)
	}
	b := bs[0]
	if !strings.Contains(b.Code, ">>> subq = bank_audit.account_transactions.select().with_only_columns(AccountTransaction.id)") ||
		b.Source != bundles.SourceDocs || b.Origin.Package != "python-sqlalchemy-doc" ||
		b.Origin.File != "/usr/share/doc/python-sqlalchemy-doc/rst/orm/large_collections.rst" || b.Origin.Line != 516 {
		t.Errorf("block = %+v, origin %+v", b, b.Origin)
	}
	if !strings.Contains(b.Imports, "from sqlalchemy import update") {
		t.Errorf("imports = %q; want the page's import lines", b.Imports)
	}
	// A method whose class the page never names gets no block, however
	// common its leaf is on the page.
	if bs := d.Blocks("sqlalchemy.orm.Query.where", 3); len(bs) != 0 {
		t.Errorf("Query.where blocks = %+v; want none", bs)
	}
	var nilDocs *bundles.Docs
	if bs := nilDocs.Blocks("sqlalchemy.select", 3); bs != nil {
		t.Errorf("nil docs gave %+v", bs)
	}
}

func TestDocs_Note(t *testing.T) {
	d := readSQLAlchemyDocs(t)
	n, ok := d.Note("sqlalchemy.sql.expression.Select.with_only_columns", "2.0.30", "2.0.40")
	if !ok || n.Version != "2.0.33" || n.Text != "Fixed typing issue with _sql.Select.with_only_columns." ||
		n.File != "/usr/share/doc/python-sqlalchemy-doc/rst/changelog/changelog_20.rst" {
		t.Errorf("note = %+v, %v; want the 2.0.33 typing fix with its markup removed", n, ok)
	}
	// Outside the span of the diff, the newest entry at most the new
	// version is still the one.
	if n, ok := d.Note("sqlalchemy.sql.expression.Select.with_only_columns", "2.0.35", "2.0.40"); !ok || n.Version != "2.0.33" {
		t.Errorf("note = %+v, %v", n, ok)
	}
	if n, ok := d.Note("sqlalchemy.sql.expression.Select.with_only_columns", "", "2.0.30"); ok {
		t.Errorf("note %+v of a version after the new one", n)
	}
	if n, ok := d.Note("sqlalchemy.orm.Session.no_such_method", "", ""); ok {
		t.Errorf("note %+v for an API no entry names", n)
	}
}

// numpy's -doc package ships rendered HTML alone: its release notes are
// read from the HTML.
func TestReadDocs_HTMLReleaseNotes(t *testing.T) {
	d, err := bundles.ReadDocs("testdata/docs/python-numpy-doc", "/usr/share/doc", "python-numpy-doc", "1:2.2.4+ds-1")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := d.Note("numpy.unstack", "2.0.2", "2.2.4")
	if !ok || n.Version != "2.1.0" || n.File != "/usr/share/doc/python-numpy/html/release/2.1.0-notes.html" ||
		!strings.HasPrefix(n.Text, "A new function np.unstack(array, axis=...) was added, which splits an array into a tuple of arrays along an axis.") {
		t.Errorf("note = %+v, %v; want the 2.1.0 entry of numpy.unstack", n, ok)
	}
}

// Two real pages of sid's numpy documentation name numpy.strings.slice:
// 2.3.0 introduces it in prose, 2.3.5 lists "#30059: BUG: Fix
// np.strings.slice if stop=None…" among its merged pull requests. The
// entry it came in is its note, for the 2.2 -> 2.4 span and without one.
func TestDocs_Note_IntroductionOverFix(t *testing.T) {
	d, err := bundles.ReadDocs("testdata/docs/python-numpy-doc-sid", "/usr/share/doc", "python-numpy-doc", "1:2.4.6+ds-5")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := d.Note("numpy.strings.slice", "2.2.4", "2.4.6")
	if !ok || n.Version != "2.3.0" || !strings.HasPrefix(n.Text, "The new function numpy.strings.slice was added") {
		t.Errorf("note = %+v, %v; want the 2.3.0 entry that introduces numpy.strings.slice", n, ok)
	}
	// Outside the span only the newest counts, but prose still wins over
	// a pull request's title.
	if n, ok := d.Note("numpy.strings.slice", "2.3.5", "2.4.6"); !ok || n.Version != "2.3.0" {
		t.Errorf("note = %+v, %v; want 2.3.0's prose", n, ok)
	}
	// With only the pull request in range, the pull request is the entry.
	if n, ok := d.Note("numpy.strings.slice", "2.3.4", "2.3.5"); !ok || n.Version != "2.3.5" || !strings.HasPrefix(n.Text, "#30059: BUG:") {
		t.Errorf("note = %+v, %v; want the 2.3.5 pull request", n, ok)
	}
}

func TestCleanMarkup(t *testing.T) {
	tests := []struct{ name, in, want string }{
		// SQLAlchemy's changelog_20.rst, 2.0.33
		{"Role", "Fixed typing issue with :meth:`_sql.Select.with_only_columns`.", "Fixed typing issue with _sql.Select.with_only_columns."},
		// python3-pydantic 2.14.1's changelog.gz (sid), line 544
		{"MarkdownLink", "Add [`FieldInfo.asdict()`](https://pydantic.dev/docs/validation/latest/api/pydantic/fields/#pydantic.fields.FieldInfo.asdict) method, improve documentation around `FieldInfo` by @Viicos in [#12411](https://github.com/pydantic/pydantic/pull/12411).",
			"Add FieldInfo.asdict() method, improve documentation around FieldInfo by @Viicos in #12411."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bundles.CleanMarkup(tt.in); got != tt.want {
				t.Errorf("CleanMarkup(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A Sphinx page names the API it documents in its object description's id
// (<dt class="sig sig-object py" id="django.template.Library.simple_block_tag">),
// which its text shows only as "simple_block_tag": the page's blocks are
// the method's (python-django-doc 5.2.18, sid).
func TestDocs_Blocks_HTMLObjectDescription(t *testing.T) {
	d, err := bundles.ReadDocs("testdata/docs/python-django-doc-sid", "/usr/share/doc/python-django-doc", "python-django-doc", "3:5.2.18-2")
	if err != nil {
		t.Fatal(err)
	}
	bs := d.Blocks("django.template.Library.simple_block_tag", 3)
	if len(bs) != 3 {
		t.Fatalf("blocks = %+v; want the page's three blocks that use simple_block_tag", bs)
	}
	for _, b := range bs {
		if !strings.Contains(b.Code, "simple_block_tag") || b.Origin.File != "/usr/share/doc/python-django-doc/html/howto/custom-template-tags.html" {
			t.Errorf("block %+v, origin %+v", b, b.Origin)
		}
	}
	// Another class's method of the same leaf is still named nowhere.
	if bs := d.Blocks("django.template.Engine.simple_block_tag", 3); len(bs) != 0 {
		t.Errorf("Engine.simple_block_tag blocks = %+v; want none", bs)
	}
}

// A block that names a method's class and calls the method on an instance
// is the method's even when its page never writes "Class.leaf"
// (python3-pydantic 2.14.1, sid: TypeAdapter(Node).dump_python(...)).
func TestDocs_Blocks_ClassNamedInBlock(t *testing.T) {
	d, err := bundles.ReadDocs("testdata/docs/python3-pydantic-sid", "/usr/share/doc/python3-pydantic", "python3-pydantic", "2.14.1-1")
	if err != nil {
		t.Fatal(err)
	}
	bs := d.Blocks("pydantic.TypeAdapter.dump_python", 3)
	if len(bs) != 1 || !strings.Contains(bs[0].Code, "print(TypeAdapter(Node).dump_python(nodes[0]))") ||
		bs[0].Origin.File != "/usr/share/doc/python3-pydantic/examples/cyclic_references.md" {
		t.Fatalf("blocks = %+v; want the page's block that calls TypeAdapter(Node).dump_python", bs)
	}
	if len(bs[0].Setup) == 0 {
		t.Errorf("block has no setup; want the page's earlier blocks")
	}
	// The same leaf of a class no block names gets none.
	if bs := d.Blocks("pydantic.RootModel.dump_python", 3); len(bs) != 0 {
		t.Errorf("RootModel.dump_python blocks = %+v; want none", bs)
	}
}
