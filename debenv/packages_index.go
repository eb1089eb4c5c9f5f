package debenv

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hbollon/go-edlib"
	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/nearest"
	"github.com/ulikunitz/xz"
)

// DefaultIndexMaxAge is how long a downloaded Packages index is used before
// [Store.PackageIndex] downloads it again.
const DefaultIndexMaxAge = 12 * time.Hour

// A Package is one binary package of a suite's Packages index, reduced to
// the fields that resolving library names needs (Debian Policy §5.3, the
// binary package control fields).
type Package struct {
	Name    string
	Version string
	// Source is the source package's name; a stanza without a Source field
	// has the binary package's name.
	Source string
	// Provides are the virtual package names it provides, without versions.
	Provides []string
	// Depends are the package names in its Depends and Pre-Depends fields,
	// alternatives included, without versions or architecture qualifiers.
	Depends []string
	// Filename is the .deb's path in the archive ("pool/main/s/sqlalchemy/
	// python-sqlalchemy-doc_2.0.40+ds1-1_all.deb") and SHA256 its digest,
	// lowercase hex, as the index records them; Size is its size in bytes.
	Filename, SHA256 string
	Size             int64
}

// A PackageIndex is the main component's Packages index of one suite for
// the build machine's architecture. It is read-only once parsed and safe
// for concurrent use.
type PackageIndex struct {
	Suite    string
	byName   map[string]*Package
	bySource map[string][]*Package
	provided map[string][]*Package
	names    []string // sorted
}

// ParsePackages parses a Packages index (deb822 stanzas, as in
// dists/SUITE/main/binary-ARCH/Packages) read from r. A stanza without a
// Package field is an error naming its line.
func ParsePackages(r io.Reader, suite string) (*PackageIndex, error) {
	ix := &PackageIndex{Suite: suite, byName: map[string]*Package{}, bySource: map[string][]*Package{}, provided: map[string][]*Package{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var cur *Package
	line, start := 0, 0
	flush := func() error {
		if cur == nil {
			return nil
		}
		if cur.Name == "" {
			return fmt.Errorf("Packages index of %s, line %d: stanza without a Package field", suite, start)
		}
		if cur.Source == "" {
			cur.Source = cur.Name
		}
		if _, ok := ix.byName[cur.Name]; !ok { // an index lists one version per package; keep the first
			ix.byName[cur.Name] = cur
		}
		cur = nil
		return nil
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		if text[0] == ' ' || text[0] == '\t' {
			continue // continuation of a multi-line field (Description)
		}
		if cur == nil {
			cur, start = &Package{}, line
		}
		k, v, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("Packages index of %s, line %d: %q is not a field", suite, line, text)
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Package":
			cur.Name = v
		case "Version":
			cur.Version = v
		case "Source":
			cur.Source, _, _ = strings.Cut(v, " ") // "src (version)"
		case "Provides":
			cur.Provides = relationNames(v)
		case "Depends", "Pre-Depends":
			cur.Depends = append(cur.Depends, relationNames(v)...)
		case "Filename":
			cur.Filename = v
		case "SHA256":
			cur.SHA256 = strings.ToLower(v)
		case "Size":
			cur.Size, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read Packages index of %s: %w", suite, err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	for name, p := range ix.byName {
		ix.names = append(ix.names, name)
		ix.bySource[p.Source] = append(ix.bySource[p.Source], p)
		for _, v := range p.Provides {
			ix.provided[v] = append(ix.provided[v], p)
		}
	}
	slices.Sort(ix.names)
	byName := func(a, b *Package) int { return strings.Compare(a.Name, b.Name) }
	for _, ps := range ix.bySource {
		slices.SortFunc(ps, byName)
	}
	for _, ps := range ix.provided {
		slices.SortFunc(ps, byName)
	}
	return ix, nil
}

// relationNames returns the package names of a relationship field
// ("a (>= 1), b:any | c [amd64]") in order.
func relationNames(field string) []string {
	var out []string
	for rel := range strings.SplitSeq(field, ",") {
		for alt := range strings.SplitSeq(rel, "|") {
			alt = strings.TrimSpace(alt)
			end := strings.IndexAny(alt, " (:[<")
			if end >= 0 {
				alt = alt[:end]
			}
			if alt != "" {
				out = append(out, alt)
			}
		}
	}
	return out
}

// Len returns the number of packages in the index.
func (ix *PackageIndex) Len() int { return len(ix.names) }

// Package returns the package called name.
func (ix *PackageIndex) Package(name string) (*Package, bool) {
	p, ok := ix.byName[name]
	return p, ok
}

// BySource returns the binary packages built from source package src,
// sorted by name.
func (ix *PackageIndex) BySource(src string) []*Package { return slices.Clone(ix.bySource[src]) }

// Providers returns the packages that provide the virtual package name,
// sorted by name.
func (ix *PackageIndex) Providers(name string) []*Package { return slices.Clone(ix.provided[name]) }

// IsPython reports whether p is a Python 3 package: its name starts with
// python3- or it depends on python3 or a python3-* package.
func (p *Package) IsPython() bool {
	if strings.HasPrefix(p.Name, "python3-") {
		return true
	}
	return slices.ContainsFunc(p.Depends, func(d string) bool {
		return d == "python3" || strings.HasPrefix(d, "python3-") || strings.HasPrefix(d, "python3.")
	})
}

// Nearest returns up to n package names of the index closest to name,
// python3-* packages first: names that contain it, then by edit distance
// (optimal string alignment: an exchange of two neighbouring letters is
// one edit; at most max(2, len/3) edits, on the name and on the name
// without its python3- prefix). A name far from everything yields none.
func (ix *PackageIndex) Nearest(name string, n int) []string {
	return nearestIn([]*PackageIndex{ix}, name, n)
}

// nearestIn is [PackageIndex.Nearest] over the union of indexes.
func nearestIn(indexes []*PackageIndex, name string, n int) []string {
	q := strings.ToLower(strings.TrimSpace(name))
	bare := strings.TrimPrefix(q, "python3-")
	if bare == "" || n <= 0 {
		return nil
	}
	limit := max(2, len(bare)/3)
	var out []nearest.Scored
	seen := map[string]bool{}
	for _, ix := range indexes {
		for _, c := range ix.names {
			if !seen[c] {
				seen[c] = true
				if s, ok := nearScore(c, q, bare, limit); ok {
					out = append(out, nearest.Scored{Name: c, Score: s})
				}
			}
		}
	}
	return nearest.Best(out, n)
}

// nearScore scores package name c against the query q (bare: q without
// python3-); lower is nearer, and false means too far.
func nearScore(c, q, bare string, limit int) (int, bool) {
	cb, isPy := strings.CutPrefix(c, "python3-")
	var s int
	switch {
	case c == q:
		return 0, false
	case len(bare) >= 3 && strings.Contains(cb, bare):
		s = 1 + (len(cb)-len(bare))/4
	default:
		if nearest.Abs(len(cb)-len(bare)) > limit && nearest.Abs(len(c)-len(q)) > limit {
			return 0, false
		}
		d := min(edlib.OSADamerauLevenshteinDistance(cb, bare), edlib.OSADamerauLevenshteinDistance(c, q))
		if d > limit {
			return 0, false
		}
		s = 1 + d
	}
	if !isPy {
		s += 2
	}
	return s, true
}

// debArch returns the Debian architecture of the build machine, which
// debootstrap installs by default.
func debArch() string {
	switch runtime.GOARCH {
	case "386":
		return "i386"
	case "arm":
		return "armhf"
	case "ppc64le":
		return "ppc64el"
	}
	return runtime.GOARCH
}

// IndexConfig says where [Store.PackageIndex] downloads from. A zero
// IndexConfig works.
type IndexConfig struct {
	Mirror string        // Debian archive URL; "" means DefaultMirror
	MaxAge time.Duration // reuse a cached index this young; 0 means DefaultIndexMaxAge
	Client *http.Client  // nil means a client with a 5-minute timeout
	Log    *slog.Logger  // nil means slog.Default()
	// MaxDocPackage skips a documentation package whose .deb is larger
	// ([Store.LibraryDocs]), in bytes; 0 means DefaultMaxDocPackage.
	MaxDocPackage int64
}

// DefaultMaxDocPackage is the largest documentation package
// [Store.LibraryDocs] downloads: 64 MB takes python-sklearn-doc (52 MB in
// trixie) and leaves out python-matplotlib-doc (170 MB).
const DefaultMaxDocPackage = 64 << 20

// PackageIndex returns suite's Packages index (main, the build machine's
// architecture), downloading dists/SUITE/main/binary-ARCH/Packages.xz from
// the mirror into the cache home/debindex/HOST/SUITE/ when the cached copy
// is missing or older than cfg.MaxAge. When the download fails and a cached
// copy exists, it is used with a warning. The index is not checked against
// the suite's signed Release file: it only names and resolves packages,
// and apt checks every package it installs. The parsed index is kept in s
// for as long as the cached file is unchanged (same size and modification
// time) and shared by every caller: treat it as read-only. A run over many
// libraries decompresses and parses a suite's index once, not once per
// library's documentation lookup (docs/serving.md §7).
func (s *Store) PackageIndex(ctx context.Context, suite string, cfg IndexConfig) (*PackageIndex, error) {
	log := cmp.Or(cfg.Log, slog.Default())
	mirror := strings.TrimRight(cmp.Or(cfg.Mirror, DefaultMirror), "/")
	maxAge := cmp.Or(cfg.MaxAge, DefaultIndexMaxAge)
	client := cfg.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	path := s.IndexPath(suite, mirror)
	fi, statErr := os.Stat(path)
	if statErr != nil || time.Since(fi.ModTime()) > maxAge {
		src := fmt.Sprintf("%s/dists/%s/main/binary-%s/Packages.xz", mirror, suite, debArch())
		data, err := download(ctx, client, src)
		switch {
		case err == nil:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return nil, fmt.Errorf("cache Packages index: %w", err)
			}
			if err := atomicfile.Write(path, data, 0o644); err != nil {
				return nil, fmt.Errorf("cache Packages index: %w", err)
			}
			log.Info("downloaded Packages index", "suite", suite, "url", src, "bytes", len(data))
		case statErr == nil:
			log.Warn("using a cached Packages index: the download failed", "suite", suite, "cached", fi.ModTime().Format(time.RFC3339), "err", err)
		default:
			return nil, fmt.Errorf("Packages index of %s: %w", suite, err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("Packages index of %s: %w", suite, err)
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return nil, fmt.Errorf("Packages index of %s: %w", suite, err)
	}
	s.mu.Lock()
	c, ok := s.indexes[path]
	s.mu.Unlock()
	if ok && c.size == fi.Size() && c.mtime.Equal(fi.ModTime()) {
		return c.ix, nil
	}
	zr, err := xz.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("Packages index of %s (%s): %w", suite, path, err)
	}
	ix, err := ParsePackages(zr, suite)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.indexes == nil {
		s.indexes = map[string]parsedIndex{}
	}
	s.indexes[path] = parsedIndex{size: fi.Size(), mtime: fi.ModTime(), ix: ix}
	s.mu.Unlock()
	return ix, nil
}

// IndexPath is where [Store.PackageIndex] caches suite's Packages index
// from mirror ("" means DefaultMirror): home/debindex/HOST/SUITE/
// Packages-ARCH.xz, the file as the archive serves it.
func (s *Store) IndexPath(suite, mirror string) string {
	host := "mirror"
	if u, err := url.Parse(cmp.Or(mirror, DefaultMirror)); err == nil && u.Host != "" {
		host = u.Host
	}
	return filepath.Join(filepath.Dir(s.Dir), "debindex", host, suite, "Packages-"+debArch()+".xz")
}

// download GETs src and returns its body.
func download(ctx context.Context, client *http.Client, src string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", src, resp.Status)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", src, err)
	}
	return buf.Bytes(), nil
}
