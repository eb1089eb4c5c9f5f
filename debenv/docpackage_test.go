package debenv_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/debenv"
)

// testdata/packages/trixie-docs.txt holds stanzas copied unchanged from
// trixie's Packages index; testdata/debs holds the real .deb of one of
// them, python-django-uwsgi-doc 1.1.2-3, served from a loopback mirror.

func TestPackageIndex_DocPackages(t *testing.T) {
	ix := readIndex(t, "trixie-docs")
	got := ix.DocPackages("python3-sqlalchemy")
	if len(got) != 1 || got[0].Name != "python-sqlalchemy-doc" ||
		got[0].Filename != "pool/main/s/sqlalchemy/python-sqlalchemy-doc_2.0.40+ds1-1_all.deb" || len(got[0].SHA256) != 64 {
		t.Errorf("DocPackages(python3-sqlalchemy) = %+v; want python-sqlalchemy-doc with its Filename and SHA256", got)
	}
	if got := ix.DocPackages("python3-networkx"); len(got) != 0 {
		t.Errorf("DocPackages(python3-networkx) = %+v; trixie's networkx builds no -doc package", got)
	}
	if got := ix.DocPackages("python3-no-such"); got != nil {
		t.Errorf("DocPackages of an unknown package = %+v", got)
	}
}

func TestStore_Unpack(t *testing.T) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb")
	}
	ix := readIndex(t, "trixie-docs")
	p, _ := ix.Package("python-django-uwsgi-doc")
	requests := 0
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		if r.URL.Path != "/debian/"+p.Filename {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join("testdata", "debs", filepath.Base(p.Filename)))
	}))
	defer mirror.Close()
	s := debenv.OpenStore(t.TempDir())
	cfg := debenv.IndexConfig{Mirror: mirror.URL + "/debian"}
	dir, err := s.Unpack(t.Context(), "trixie", p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if dir != s.Unpacked("trixie", p) {
		t.Errorf("dir = %s; want %s", dir, s.Unpacked("trixie", p))
	}
	if _, err := os.Stat(filepath.Join(dir, "usr/share/doc/python-django-uwsgi-doc/copyright")); err != nil {
		t.Errorf("unpacked files: %v", err)
	}
	// Unpacked once: a second call downloads nothing.
	if _, err := s.Unpack(t.Context(), "trixie", p, cfg); err != nil || requests != 1 {
		t.Errorf("second unpack: err %v, %d requests; want the unpacked copy reused", err, requests)
	}
	// A package whose bytes differ from its index entry is refused and
	// leaves nothing behind.
	bad := *p
	bad.Version = "1.1.2-4"
	bad.SHA256 = strings.Repeat("0", 64)
	if _, err := s.Unpack(t.Context(), "trixie", &bad, cfg); err == nil || !strings.Contains(err.Error(), "SHA256") {
		t.Errorf("unpack with a wrong digest: err %v; want a SHA256 mismatch", err)
	}
	if _, err := os.Stat(s.Unpacked("trixie", &bad)); !os.IsNotExist(err) {
		t.Errorf("a refused package left %s (%v)", s.Unpacked("trixie", &bad), err)
	}
}

func TestParsePackages_DebFields(t *testing.T) {
	ix := readIndex(t, "trixie-docs")
	p, _ := ix.Package("python-django-uwsgi-doc")
	if p.Size != 3548 || p.SHA256 != "97096f5099c3e5deee63fc0d5905d145bba6db05ea10c529ec8747d6842fb494" ||
		p.Filename != "pool/main/d/django-uwsgi/python-django-uwsgi-doc_1.1.2-3_all.deb" {
		t.Errorf("python-django-uwsgi-doc = %+v", p)
	}
}
