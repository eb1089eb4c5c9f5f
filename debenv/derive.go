package debenv

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/novelapi/novelapi/sandbox"
)

// A DeriveConfig describes an environment made from another one by
// [Store.Derive]. Derive never modifies it.
type DeriveConfig struct {
	// Name of the new environment (lower-case letters, digits, '.', '_',
	// '-'); it must differ from the base's.
	Name string
	// Base is the environment the new one starts as a copy of.
	Base *sandbox.Environment
	// Key identifies what Install adds; the new manifest's Key is derived
	// from the base's and this one, so an environment with the same base
	// and Key is reused rather than made again.
	Key string
	// Install adds files to the new root filesystem root. The copy shares
	// the base's files (hard links): Install must write new files only,
	// never into a file the base has (remove it first to replace it).
	Install func(root string) error
	// Describe completes the new manifest (a copy of the base's with Name,
	// Base, Key and BuiltAt set) before it is written; nil leaves it so.
	Describe func(root string, m *sandbox.Manifest) error
	// Log receives progress; nil means slog.Default().
	Log *slog.Logger
}

// Derive makes the environment cfg.Name as a layer over cfg.Base: a copy
// of the base's root filesystem whose files are hard links to the base's
// (no space taken but the new files'), to which cfg.Install adds, swapped
// into the store atomically like a build (docs/environments.md §7). An
// environment of that name whose manifest has the same base and key is
// returned as it is. The base must live in the same store (hard links
// cannot cross file systems; where the store's file system refuses them,
// files are copied).
func (s *Store) Derive(ctx context.Context, cfg DeriveConfig) (*sandbox.Environment, error) {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	if !envNameRE.MatchString(cfg.Name) {
		return nil, fmt.Errorf("environment name %q: use lower-case letters, digits, '.', '_' and '-'", cfg.Name)
	}
	if cfg.Base == nil || cfg.Base.Name == cfg.Name {
		return nil, fmt.Errorf("derive %s: needs a base environment other than itself", cfg.Name)
	}
	key := Key(cfg.Base.Manifest.Key, []string{"layer:" + cfg.Key})
	unlock, err := s.lock(ctx, cfg.Name, log)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Leftovers of an interrupted derive of this name only: a layer takes
	// seconds, and sweeping every build's leftovers (Build does) can take
	// minutes.
	if old, _ := filepath.Glob(filepath.Join(s.Dir, ".build-"+cfg.Name+"-*")); len(old) > 0 {
		for _, d := range old {
			if rest := strings.TrimPrefix(filepath.Base(d), ".build-"+cfg.Name+"-"); !strings.Contains(rest, "-") {
				removeBuildDir(d)
			}
		}
	}
	if e, err := s.Get(cfg.Name); err == nil && e.Manifest.Key == key && e.Manifest.Base == cfg.Base.Name {
		log.Info("reusing environment (same base and layer)", "env", cfg.Name, "base", cfg.Base.Name)
		return e, nil
	}
	start := time.Now()
	tmp, err := os.MkdirTemp(s.Dir, ".build-"+cfg.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("create build directory: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			removeBuildDir(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	root := filepath.Join(tmp, "rootfs")
	n, err := linkTree(ctx, cfg.Base.Root, root)
	if err != nil {
		return nil, fmt.Errorf("copy %s into %s: %w", cfg.Base.Name, cfg.Name, err)
	}
	log.Info("layer: base copied", "env", cfg.Name, "base", cfg.Base.Name, "files", n, "took", time.Since(start).Round(time.Millisecond))
	if cfg.Install != nil {
		if err := cfg.Install(root); err != nil {
			return nil, err
		}
	}
	m := cfg.Base.Manifest
	m.Name, m.Base, m.Key = cfg.Name, cfg.Base.Name, key
	m.BuiltAt = time.Now().UTC().Truncate(time.Second)
	m.DockerImage = ""
	if cfg.Describe != nil {
		if err := cfg.Describe(root, &m); err != nil {
			return nil, err
		}
	}
	if err := WriteManifest(tmp, m); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	if err := s.swapIn(tmp, cfg.Name); err != nil {
		return nil, err
	}
	ok = true
	log.Info("environment layered", "env", cfg.Name, "base", cfg.Base.Name, "took", time.Since(start).Round(time.Millisecond))
	return s.Get(cfg.Name)
}

// linkTree recreates the tree at src under dst: directories made with the
// same mode, regular files hard-linked (copied where the file system
// refuses the link), symbolic links copied. It returns the number of
// entries made.
func linkTree(ctx context.Context, src, dst string) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		n++
		switch t := d.Type(); {
		case d.IsDir():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if err := os.Mkdir(target, fi.Mode().Perm()); err != nil {
				return err
			}
			return os.Chmod(target, fi.Mode().Perm()|fi.Mode()&(fs.ModeSticky|fs.ModeSetgid))
		case t&fs.ModeSymlink != 0:
			to, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(to, target)
		case t.IsRegular():
			err := os.Link(p, target)
			if err == nil || !(errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EMLINK)) {
				return err
			}
			return copyFile(p, target)
		default:
			return nil // device nodes and fifos: the sandboxes mount their own /dev
		}
	})
	return n, err
}

// copyFile copies the regular file src to dst with its mode.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := out.ReadFrom(in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
