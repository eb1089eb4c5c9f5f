package debenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/sandbox"
)

// A Store holds the built environments under Dir, one directory per
// environment: Dir/NAME/rootfs and Dir/NAME/manifest.json. An environment
// without manifest.json is incomplete and never returned.
//
// A Store is safe for concurrent readers; builds of the same name serialize
// through a lock file.
type Store struct {
	Dir string

	mu      sync.Mutex
	indexes map[string]parsedIndex // by cached file path; see [Store.PackageIndex]
}

// parsedIndex is a Packages index parsed from a cached file of this size
// and modification time.
type parsedIndex struct {
	size  int64
	mtime time.Time
	ix    *PackageIndex
}

// OpenStore returns the store under home (the $NOVELAPI_HOME directory),
// i.e. home/envs. It does not create anything.
func OpenStore(home string) *Store {
	return &Store{Dir: filepath.Join(home, "envs")}
}

// Get returns the complete environment called name, or an error wrapping
// ErrUnknownEnvironment that lists the environments the store has.
func (s *Store) Get(name string) (*sandbox.Environment, error) {
	if name == "" || filepath.Base(name) != name || name[0] == '.' {
		return nil, fmt.Errorf("environment name %q: must be a plain name", name)
	}
	dir := filepath.Join(s.Dir, name)
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		names, _ := s.names()
		return nil, fmt.Errorf("%w %q in %s (have: %v; build one with `novelapi env build`)", ErrUnknownEnvironment, name, s.Dir, names)
	}
	if err != nil {
		return nil, fmt.Errorf("read environment %q: %w", name, err)
	}
	var m sandbox.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("read environment %q: manifest.json: %w", name, err)
	}
	return &sandbox.Environment{Name: name, Root: filepath.Join(dir, "rootfs"), Manifest: m}, nil
}

// List returns the complete environments, sorted by name.
func (s *Store) List() ([]*sandbox.Environment, error) {
	names, err := s.names()
	if err != nil {
		return nil, err
	}
	var out []*sandbox.Environment
	for _, n := range names {
		e, err := s.Get(n)
		if err != nil {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func (s *Store) names() ([]string, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.Dir, e.Name(), "manifest.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// WriteManifest writes m to the environment directory dir atomically
// (temporary file + rename).
func WriteManifest(dir string, m sandbox.Manifest) error {
	return atomicfile.WriteJSON(filepath.Join(dir, "manifest.json"), m)
}
