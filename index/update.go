package index

import (
	"context"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/stamp"
)

// Generation returns the name of the live generation of the index at dir
// (its CURRENT file), or an error wrapping ErrNoIndex.
func Generation(dir string) (string, error) { return readCurrent(dir) }

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
