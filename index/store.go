package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/novelapi/novelapi/internal/atomicfile"
)

// On-disk layout of an index directory DIR:
//
//	DIR/CURRENT              name of the live generation, replaced atomically
//	DIR/.build.lock          held exclusively by the one running build or add
//	DIR/gen-000007/          one complete generation:
//	    manifest.json        [Manifest], written last
//	    bundles.jsonl        the indexed bundles
//	    lexical.bleve/       bleve scorch index (BM25) of the S, E and M units
//	    lexical-code.bleve/  bleve scorch index (BM25) of the C units
//	    vectors.gob          chromem-go export, one collection per component
//	    READERS              shared-locked by every open [Index]
//
// A build writes a new generation and then switches CURRENT. Generations
// other than the live one are removed only when no reader holds their
// READERS lock, so open indexes are never broken by a rebuild.
const (
	currentFile  = "CURRENT"
	buildLock    = ".build.lock"
	readersLock  = "READERS"
	manifestFile = "manifest.json"
	bundlesFile  = "bundles.jsonl"
	vectorsFile  = "vectors.gob"
	genPrefix    = "gen-"
)

var errLocked = errors.New("locked")

// readCurrent returns the live generation's name.
func readCurrent(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, currentFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir); serr != nil {
				return "", fmt.Errorf("%w: %s does not exist (run novelapi index build)", ErrNoIndex, dir)
			}
			return "", fmt.Errorf("%w: %s has no %s: not an index, or its first build did not complete", ErrNoIndex, dir, currentFile)
		}
		return "", fmt.Errorf("read %s: %w", filepath.Join(dir, currentFile), err)
	}
	gen := strings.TrimSpace(string(b))
	if !strings.HasPrefix(gen, genPrefix) || strings.ContainsAny(gen, `/\`) {
		return "", fmt.Errorf("%w: %s names %q, not a generation", ErrCorrupt, filepath.Join(dir, currentFile), gen)
	}
	return gen, nil
}

// nextGen returns the name of a new generation directory in dir.
func nextGen(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	n := 0
	for _, e := range ents {
		if v, ok := strings.CutPrefix(e.Name(), genPrefix); ok {
			if i, err := strconv.Atoi(v); err == nil && i > n {
				n = i
			}
		}
	}
	return fmt.Sprintf("%s%06d", genPrefix, n+1), nil
}

// acquireBuild creates dir if needed and takes its build lock.
func acquireBuild(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create index dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, buildLock), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open build lock: %w", err)
	}
	if err := lockFile(f, true, true); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%w: %s", ErrBuildRunning, dir)
		}
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return f, nil
}

// switchCurrent makes gen the live generation.
func switchCurrent(dir, gen string) error {
	return atomicfile.Write(filepath.Join(dir, currentFile), []byte(gen+"\n"), 0o644)
}

// removeStale removes every generation but keep whose readers lock can be
// taken exclusively (no open reader). Errors are ignored: a generation left
// behind is removed by a later build.
func removeStale(dir, keep string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, genPrefix) || name == keep {
			continue
		}
		gdir := filepath.Join(dir, name)
		f, err := os.OpenFile(filepath.Join(gdir, readersLock), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			continue
		}
		if lockFile(f, true, true) == nil {
			os.RemoveAll(gdir)
		}
		f.Close()
	}
}

// openGeneration finds the live generation of dir and takes a shared lock
// on it, so that no build removes it while it is open. It retries when a
// build switched generations in between.
func openGeneration(dir string) (gen string, lock *os.File, err error) {
	for range 5 {
		gen, err = readCurrent(dir)
		if err != nil {
			return "", nil, err
		}
		gdir := filepath.Join(dir, gen)
		f, err := os.OpenFile(filepath.Join(gdir, readersLock), os.O_RDONLY, 0)
		if err != nil {
			continue // removed after CURRENT moved on
		}
		if err := lockFile(f, false, false); err != nil {
			f.Close()
			return "", nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if _, err := os.Stat(filepath.Join(gdir, manifestFile)); err != nil {
			f.Close()
			continue
		}
		return gen, f, nil
	}
	if err == nil {
		err = fmt.Errorf("%w: %s: generation %s is missing or incomplete", ErrCorrupt, dir, gen)
	}
	return "", nil, err
}

// readManifest reads gdir/manifest.json.
func readManifest(gdir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(gdir, manifestFile))
	if err != nil {
		return nil, fmt.Errorf("%w: read manifest: %v", ErrCorrupt, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, filepath.Join(gdir, manifestFile), err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("%w: %s: format %d, this program reads format %d (rebuild the index)", ErrCorrupt, filepath.Join(gdir, manifestFile), m.Format, ManifestFormat)
	}
	return &m, nil
}

// writeManifest writes gdir/manifest.json atomically.
func writeManifest(gdir string, m *Manifest) error {
	return atomicfile.WriteJSON(filepath.Join(gdir, manifestFile), m)
}

// copyDir copies the regular files of src into dst recursively.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := out.ReadFrom(in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
