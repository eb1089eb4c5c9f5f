package index

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/stamp"
)

// Generation returns the name of the live generation of the index at dir
// (its CURRENT file), or an error wrapping ErrNoIndex.
func Generation(dir string) (string, error) { return readCurrent(dir) }

// LiveManifest returns the manifest of the live generation of the index at
// dir without opening the generation, or an error wrapping ErrNoIndex.
func LiveManifest(dir string) (*Manifest, error) {
	gen, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	return readManifest(filepath.Join(dir, gen))
}

// indexStamp returns the stamp of an index built from the bundles file at
// bundlesPath: stage "index", [UnitRules], the bundles' digest.
func indexStamp(bundlesPath string) (stamp.Stamp, error) {
	s, err := stamp.New("index", UnitRules, nil)
	if err != nil {
		return s, err
	}
	return s.WithFile("bundles", bundlesPath)
}

// Update is the index stage of a pipeline: it builds a new generation of the
// index at dir from bs, the bundles of the file at bundlesPath, unless the
// index's stamp says it was built from that same file under the current
// unit rules and its live generation uses the current default embedder
// ([BuiltCurrent]). It returns why it built ("" when it reused the index).
func Update(ctx context.Context, dir, bundlesPath string, bs []bundles.Bundle, cfg BuildConfig) (why string, err error) {
	want, err := indexStamp(bundlesPath)
	if err != nil {
		return "", err
	}
	why = stamp.Stale(dir, want)
	if why == "" {
		if current, cerr := BuiltCurrent(dir); cerr != nil {
			why = cerr.Error()
		} else if !current {
			why = "built with an older default embedder or older unit rules"
		}
	}
	if why == "" {
		return "", nil
	}
	if _, err := Build(ctx, dir, bs, cfg); err != nil {
		return why, err
	}
	return why, stamp.Write(dir, want)
}

// UpdatePartial makes a generation of the index at dir that serves part of
// a pipeline's bundles while the rest are still being made
// (docs/serving.md §7): a copy of the live generation without the bundles
// for which drop reports true and with bs (as [Replace]), or, when dir has
// no live generation, an index of bs alone (as [Build]). It first removes
// the stamp that [Update] reads, so that the next Update builds the whole
// index again instead of taking this generation for it.
func UpdatePartial(ctx context.Context, dir string, drop func(*bundles.Bundle) bool, bs []bundles.Bundle, cfg BuildConfig) (*Manifest, error) {
	if err := os.Remove(stamp.Path(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	m, err := Replace(ctx, dir, drop, bs, cfg)
	if errors.Is(err, ErrNoIndex) {
		return Build(ctx, dir, bs, cfg)
	}
	return m, err
}
