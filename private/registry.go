package private

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/internal/filelock"
	"github.com/novelapi/novelapi/internal/pyversion"
)

// An Entry is one private library version that novelapi add made
// available.
type Entry struct {
	Library string `json:"library"` // [LibraryName] of Dist
	Dist    string `json:"dist"`
	Version string `json:"version"`
	// Source is [Source.Label]: the path handed to add, with "@REV".
	Source string `json:"source"`
	Kind   string `json:"kind"`
	// Env is the layered environment holding it; Base the environment
	// under the layer.
	Env  string `json:"env"`
	Base string `json:"base"`
	// Imports and Import as in [Source].
	Imports []string `json:"imports"`
	Import  string   `json:"import"`
	// Debian lists the Debian packages its dependencies map to; Private
	// the private libraries it depends on, as "name==version".
	Debian  []string `json:"debian,omitempty"`
	Private []string `json:"private,omitempty"`
	// Staged is the directory holding the library as installed (its
	// modules and dist-info), from which a later add that depends on it
	// layers it.
	Staged string `json:"staged"`
	// OldVersion is the version it was diffed against; "" when served
	// whole.
	OldVersion string `json:"old_version,omitempty"`
	// Bundles is how many bundles it put into the index; Index which index.
	Bundles int       `json:"bundles"`
	Index   string    `json:"index"`
	AddedAt time.Time `json:"added_at"`
}

// A Registry is the record of private libraries under a directory
// (home/private): registry.json, and one staged copy per library version.
// Its methods lock registry.json, so two processes adding at once each see
// the other's entries.
type Registry struct {
	Dir string
}

// OpenRegistry returns the registry in dir (created on first write).
func OpenRegistry(dir string) *Registry { return &Registry{Dir: dir} }

func (r *Registry) path() string { return filepath.Join(r.Dir, "registry.json") }

// StageDir is where an entry's installed copy lives.
func (r *Registry) StageDir(library, version string) string {
	return filepath.Join(r.Dir, library, safeName(version), "site")
}

// WorkDir is where an entry's candidates and bundles files live.
func (r *Registry) WorkDir(library, version string) string {
	return filepath.Join(r.Dir, library, safeName(version))
}

// Entries returns every entry, sorted by library then version (PEP 440).
func (r *Registry) Entries() ([]Entry, error) {
	b, err := os.ReadFile(r.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var es []Entry
	if err := json.Unmarshal(b, &es); err != nil {
		return nil, fmt.Errorf("%s: %w", r.path(), err)
	}
	slices.SortFunc(es, func(a, b Entry) int {
		if c := strings.Compare(a.Library, b.Library); c != 0 {
			return c
		}
		return pyversion.CompareStrings(a.Version, b.Version)
	})
	return es, nil
}

// Latest returns, per library, its newest entry.
func (r *Registry) Latest() (map[string]Entry, error) {
	es, err := r.Entries()
	if err != nil {
		return nil, err
	}
	out := map[string]Entry{}
	for _, e := range es {
		out[e.Library] = e // sorted ascending: the last wins
	}
	return out, nil
}

// Update applies fn to the entries under the registry's lock and writes
// the result atomically when fn returns nil.
func (r *Registry) Update(fn func([]Entry) ([]Entry, error)) error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	unlock, err := filelock.Lock(r.path())
	if err != nil {
		return err
	}
	defer unlock()
	es, err := r.Entries()
	if err != nil {
		return err
	}
	if es, err = fn(es); err != nil {
		return err
	}
	if es == nil {
		es = []Entry{}
	}
	return atomicfile.WriteJSON(r.path(), es)
}

// Stage installs s into dir as a site-packages directory would hold it
// (its files and a dist-info), replacing what dir held.
func Stage(s *Source, dir string) error {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := install(s, tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// safeName turns a version into a path and environment-name segment:
// lower case, anything but letters, digits, '.', '_' and '-' as '_'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '_'
	}, s)
}

// EnvName is the name of the layered environment holding library at
// version over base: "boltons-25.0.0.trixie-sci".
func EnvName(library, version, base string) string {
	return safeName(library) + "-" + safeName(version) + "." + base
}
