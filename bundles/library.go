package bundles

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/novelapi/novelapi/internal/jsonl"
	"github.com/novelapi/novelapi/internal/stamp"
	"github.com/novelapi/novelapi/sandbox"
)

// A LibraryConfig configures [BuildLibrary]: Stages 1 and 2 of one library.
// BuildLibrary never modifies it.
type LibraryConfig struct {
	// Discover configures Stage 1 (Library, OldEnv, NewEnv, Diff, Logger).
	Discover DiscoverConfig
	// Candidates is the candidates.jsonl the discovery writes; Bundles the
	// bundles.jsonl the extraction appends to. Both required.
	Candidates, Bundles string
	// Workers, Progress, Docs, Tests, SkipTests: see [ExtractConfig].
	// The bundles are extracted again when Docs' packages, Tests' files
	// or SkipTests change.
	Workers   int
	Progress  io.Writer
	Docs      *Docs
	Tests     *TestTree
	SkipTests bool
}

// A LibraryResult is what [BuildLibrary] did.
type LibraryResult struct {
	Candidates []Candidate
	Bundles    []Bundle // every bundle of the library's bundles file
	// Discovered says why the candidates were discovered ("" when reused);
	// Reextracted why the bundles file was started afresh ("" when kept).
	Discovered, Reextracted string
	Extract                 ExtractSummary
}

// discoverOptions are the Stage 1 options a candidates file is stamped with.
type discoverOptions struct {
	Library        string   `json:"library"`
	NewIfMovedFrom []string `json:"new_if_moved_from,omitempty"`
	ProtocolOnly   bool     `json:"protocol_only,omitempty"`
}

// discoverStamp returns the stamp of cfg's candidates: stage "discover",
// [DiffRules], the options, and the keys of both environments.
func (cfg LibraryConfig) discoverStamp() (stamp.Stamp, error) {
	d := cfg.Discover
	s, err := stamp.New("discover", DiffRules, discoverOptions{Library: d.Library, NewIfMovedFrom: d.Diff.NewIfMovedFrom, ProtocolOnly: d.Diff.ProtocolOnly})
	if err != nil {
		return s, err
	}
	return s.WithInput("old_env", envKey(d.OldEnv)).WithInput("new_env", envKey(d.NewEnv)), nil
}

// extractOptions are the Stage 2 options a bundles file is stamped with.
type extractOptions struct {
	SkipTests    bool `json:"skip_tests,omitempty"`
	ProtocolOnly bool `json:"protocol_only,omitempty"`
}

// extractStamp returns the stamp of cfg's bundles: stage "extract",
// [ExtractRules], the options, the candidates' digest, the new
// environment's key, the documentation packages' and the test tree's.
func (cfg LibraryConfig) extractStamp() (stamp.Stamp, error) {
	s, err := stamp.New("extract", ExtractRules, extractOptions{SkipTests: cfg.SkipTests, ProtocolOnly: cfg.Discover.Diff.ProtocolOnly})
	if err != nil {
		return s, err
	}
	s = s.WithInput("env", envKey(cfg.Discover.NewEnv)).WithInput("docs", cfg.Docs.Key())
	if k := cfg.Tests.Key(); k != "" {
		s = s.WithInput("tests", k)
	}
	return s.WithFile("candidates", cfg.Candidates)
}

func envKey(e *sandbox.Environment) string {
	if e == nil {
		return ""
	}
	return e.Name + "@" + e.Manifest.Key
}

// BuildLibrary runs Stage 1 (discovery) and Stage 2 (extraction) for one
// library, reusing what its stamps allow: the candidates are discovered
// again when their stamp differs (discovery rules, options, environments),
// and the bundles file is started afresh when its stamp differs (extraction
// rules, candidates, environment). Extraction then always runs and resumes:
// APIs already in the bundles file are skipped (see [Extract]), so an
// interrupted run goes on where it stopped.
func BuildLibrary(ctx context.Context, runner sandbox.Runner, cfg LibraryConfig) (*LibraryResult, error) {
	log := cmp.Or(cfg.Discover.Logger, slog.Default())
	lib := cfg.Discover.Library
	res := &LibraryResult{}
	dwant, err := cfg.discoverStamp()
	if err != nil {
		return nil, err
	}
	if why := stamp.Stale(cfg.Candidates, dwant); why != "" {
		res.Discovered = why
		if _, err := os.Stat(cfg.Candidates); err == nil {
			log.Info("discovering again", "library", lib, "why", why)
		}
		log.Info("stage: discover", "library", lib)
		cs, ds, err := Discover(ctx, runner, cfg.Discover)
		if err != nil {
			return nil, fmt.Errorf("discover %s: %w", lib, err)
		}
		log.Info("discovered", "library", lib, "new", ds.New, "modified", ds.Modified, "seen", ds.Seen)
		if err := WriteCandidates(cfg.Candidates, cs); err != nil {
			return nil, err
		}
		if err := stamp.Write(cfg.Candidates, dwant); err != nil {
			return nil, err
		}
		res.Candidates = cs
	} else if res.Candidates, _, err = ReadCandidates(cfg.Candidates, jsonl.ReadOptions{}); err != nil {
		return nil, err
	}

	ewant, err := cfg.extractStamp()
	if err != nil {
		return nil, err
	}
	if why := stamp.Stale(cfg.Bundles, ewant); why != "" {
		// Extraction appends to the bundles file, so bundles made under
		// other rules or from other candidates go first.
		if _, err := os.Stat(cfg.Bundles); err == nil {
			log.Info("extracting again", "library", lib, "why", why)
			res.Reextracted = why
		}
		for _, f := range []string{cfg.Bundles, cfg.Bundles + ".dropped.jsonl"} {
			if err := stamp.Remove(f); err != nil {
				return nil, err
			}
		}
		if err := os.MkdirAll(filepath.Dir(cfg.Bundles), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(cfg.Bundles, nil, 0o644); err != nil {
			return nil, err
		}
		if err := stamp.Write(cfg.Bundles, ewant); err != nil {
			return nil, err
		}
	}
	log.Info("stage: extract", "library", lib, "candidates", len(res.Candidates))
	_, es, err := Extract(ctx, runner, ExtractConfig{Env: cfg.Discover.NewEnv, Candidates: res.Candidates, Out: cfg.Bundles,
		Workers: cfg.Workers, Progress: cfg.Progress, Logger: log, Docs: cfg.Docs, Tests: cfg.Tests, SkipTests: cfg.SkipTests,
		ProtocolOnly: cfg.Discover.Diff.ProtocolOnly})
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", lib, err)
	}
	res.Extract = es
	if res.Bundles, _, err = ReadBundles(cfg.Bundles, jsonl.ReadOptions{}); err != nil {
		return nil, fmt.Errorf("extract %s: %w", lib, err)
	}
	return res, nil
}
