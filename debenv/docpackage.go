package debenv

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/novelapi/novelapi/internal/filelock"
	"github.com/novelapi/novelapi/sandbox"
)

// DocPackages returns the documentation packages built from the same
// source as the package called name (python-sqlalchemy-doc for
// python3-sqlalchemy): those whose name ends in -doc, sorted by name. None
// when name is unknown or its source builds no -doc package.
func (ix *PackageIndex) DocPackages(name string) []*Package {
	p, ok := ix.byName[name]
	if !ok {
		return nil
	}
	var out []*Package
	for _, q := range ix.bySource[p.Source] {
		if strings.HasSuffix(q.Name, "-doc") {
			out = append(out, q)
		}
	}
	return out
}

// Unpacked returns the directory holding the files of p as
// [Store.Unpack] leaves them: home/debfiles/SUITE/NAME_VERSION (an epoch's
// colon written %3a, as apt names its archives).
func (s *Store) Unpacked(suite string, p *Package) string {
	v := strings.ReplaceAll(p.Version, ":", "%3a")
	return filepath.Join(filepath.Dir(s.Dir), "debfiles", suite, p.Name+"_"+v)
}

// Unpack downloads the binary package p of suite from the mirror
// (cfg.Mirror, cfg.Client), checks it against the SHA256 of its Packages
// index entry, and unpacks its files (dpkg-deb -x) into [Store.Unpacked],
// which it returns. A package already unpacked there is reused without a
// download; two processes unpacking the same package take turns (a lock
// beside the directory), and an interrupted unpack leaves nothing in
// place. It never installs anything: the files are documentation read by
// Stage 2 (docs/environments.md §6). The index itself is not checked
// against the suite's signed Release file, so the files are treated as
// data, and the code mined from them only ever runs in a sandbox.
func (s *Store) Unpack(ctx context.Context, suite string, p *Package, cfg IndexConfig) (string, error) {
	dir := s.Unpacked(suite, p)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if p.Filename == "" || p.SHA256 == "" {
		return "", fmt.Errorf("unpack %s: its Packages entry has no Filename or SHA256", p.Name)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("unpack %s: %w", p.Name, err)
	}
	unlock, err := filelock.Lock(dir)
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", p.Name, err)
	}
	defer unlock()
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	client := cfg.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	src := strings.TrimRight(cmp.Or(cfg.Mirror, DefaultMirror), "/") + "/" + p.Filename
	data, err := download(ctx, client, src)
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", p.Name, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != p.SHA256 {
		return "", fmt.Errorf("unpack %s: %s has SHA256 %x, its Packages entry says %s", p.Name, src, sum, p.SHA256)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".")
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", p.Name, err)
	}
	defer os.RemoveAll(tmp)
	deb := filepath.Join(tmp, "package.deb")
	if err := os.WriteFile(deb, data, 0o644); err != nil {
		return "", fmt.Errorf("unpack %s: %w", p.Name, err)
	}
	files := filepath.Join(tmp, "files")
	cmd := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, files)
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("unpack %s: dpkg-deb -x: %w: %s", p.Name, err, strings.TrimSpace(string(out)))
	}
	if err := os.Rename(files, dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("unpack %s: %w", p.Name, err)
	}
	return dir, nil
}

// A DocPackage is a directory of documentation that a library's package
// installs, found by [Store.LibraryDocs].
type DocPackage struct {
	Name, Version string
	// Dir is where the files are on this machine, InstalledAt where the
	// package installs them ("/usr/share/doc/python-sqlalchemy-doc").
	Dir, InstalledAt string
}

// LibraryDocs returns the documentation of library for env: the
// /usr/share/doc/PACKAGE directories its packages install in env, and its
// documentation package in env's suite (python-sqlalchemy-doc for
// sqlalchemy, see [PackageIndex.DocPackages]), downloaded and unpacked
// ([Store.Unpack]). The -doc package's version may differ from the
// library's when the suite moved on since env was built; one larger than
// cfg.MaxDocPackage is left out with a warning. An experimental
// environment reads sid's index.
func (s *Store) LibraryDocs(ctx context.Context, env *sandbox.Environment, library string, cfg IndexConfig) ([]DocPackage, error) {
	lib, ok := env.Manifest.Library(library)
	if !ok {
		return nil, fmt.Errorf("docs of %s: environment %s has no library %q", library, env.Name, library)
	}
	var out []DocPackage
	for _, name := range lib.Packages {
		at := "/usr/share/doc/" + name
		if fi, err := os.Stat(filepath.Join(env.Root, at)); err == nil && fi.IsDir() {
			out = append(out, DocPackage{Name: name, Version: env.Manifest.Packages[name], Dir: filepath.Join(env.Root, at), InstalledAt: at})
		}
	}
	suite := cmp.Or(lib.Suite, env.Manifest.Suite)
	if suite == "experimental" {
		suite = "sid"
	}
	ix, err := s.PackageIndex(ctx, suite, cfg)
	if err != nil {
		return out, fmt.Errorf("docs of %s: %w", library, err)
	}
	for _, name := range lib.Packages {
		docs := ix.DocPackages(name)
		if len(docs) == 0 {
			continue
		}
		p := docs[0]
		for _, d := range docs { // python-sqlalchemy-doc over python-sqlalchemy-utils-doc
			if d.Name == "python-"+strings.TrimPrefix(name, "python3-")+"-doc" {
				p = d
				break
			}
		}
		if limit := cmp.Or(cfg.MaxDocPackage, DefaultMaxDocPackage); p.Size > limit {
			cmp.Or(cfg.Log, slog.Default()).Warn("documentation package too large; extracting without it",
				"package", p.Name, "bytes", p.Size, "limit", limit)
			break
		}
		dir, err := s.Unpack(ctx, suite, p, cfg)
		if err != nil {
			return out, fmt.Errorf("docs of %s: %w", library, err)
		}
		// python-numpy-doc installs under /usr/share/doc/python-numpy.
		out = append(out, DocPackage{Name: p.Name, Version: p.Version, Dir: filepath.Join(dir, "usr", "share", "doc"), InstalledAt: "/usr/share/doc"})
		break
	}
	return out, nil
}
