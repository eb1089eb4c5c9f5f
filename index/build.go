package index

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// BuildConfig configures [Build] and [Add]. The zero value builds with the
// built-in LSA embedder (hashed features plus LSA fitted on the units,
// [DefaultLSAK] latent dimensions) and no progress bar.
type BuildConfig struct {
	// Embedder embeds the units; nil means NewLSAEmbedder(LSAConfig{}) for
	// Build and the built-in embedder the index was built with for Add. An unfitted
	// [LSAEmbedder] is fitted on the units by Build, and means the index's
	// fitted model (when its settings match) for Add. Add must use the
	// embedder the index was built with.
	Embedder Embedder
	// Progress receives a progress bar (stderr in the CLI); nil means none.
	Progress io.Writer
	// Logger receives progress messages; nil means slog.Default().
	Logger *slog.Logger
	// Skipped records the input left out before the build (bundle lines
	// skipped as malformed); the manifest keeps it (Manifest.Skipped), and
	// Add adds it to the base generation's. nil means none.
	Skipped *Omitted
	// Limits bounds each bundle's text; text over them is cut with a
	// marker, logged and recorded in Manifest.Cut. The zero value is the
	// Default* limits.
	Limits Limits

	cut  *Omitted                   // set by Build and Add: what checkBundles cut
	drop func(*bundles.Bundle) bool // set by Replace: bundles of the base left out
}

// embedder returns the embedder of a Build (not fitted yet).
func (c BuildConfig) embedder() Embedder {
	if c.Embedder != nil {
		return c.Embedder
	}
	return NewLSAEmbedder(LSAConfig{})
}

func (c BuildConfig) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// checkBundles validates bs, drops earlier duplicates of the same API and
// version (the last one wins), keeping input order otherwise, and cuts
// the text of each to lim (bs is not modified); cut lists what was cut.
func checkBundles(bs []bundles.Bundle, lim Limits, log *slog.Logger) (out []bundles.Bundle, cut *Omitted, err error) {
	last := map[string]int{}
	for i := range bs {
		b := &bs[i]
		switch {
		case b.APIName == "":
			return nil, nil, fmt.Errorf("%w: bundle %d has no api_name", ErrBadBundle, i+1)
		case b.Library == "":
			return nil, nil, fmt.Errorf("%w: bundle %d (%s) has no library", ErrBadBundle, i+1, b.APIName)
		}
		last[bundleKey(b)] = i
	}
	lim = lim.withDefaults()
	out = make([]bundles.Bundle, 0, len(last))
	for i := range bs {
		if last[bundleKey(&bs[i])] != i {
			continue
		}
		b := bs[i]
		for _, c := range limit(&b, lim) {
			log.Warn("index: bundle text over the limit was cut (a marker in the text says what was left out)", "cut", c)
			if cut == nil {
				cut = &Omitted{}
			}
			cut.Count++
			if len(cut.Items) < MaxOmittedItems {
				cut.Items = append(cut.Items, c)
			}
		}
		out = append(out, b)
	}
	return out, cut, nil
}

// Build indexes bs into a new generation of the index in dir (created if
// needed) and makes it live only once complete: readers of the previous
// generation keep working, and on any error the previous generation stays
// live, as it does when ctx is cancelled before the switch. Bundles
// repeating an API at the same version replace earlier ones.
// It fails with ErrBuildRunning if another Build or Add holds dir.
func Build(ctx context.Context, dir string, bs []bundles.Bundle, cfg BuildConfig) (*Manifest, error) {
	bs, cut, err := checkBundles(bs, cfg.Limits, cfg.logger())
	if err != nil {
		return nil, err
	}
	cfg.cut = cut
	lock, err := acquireBuild(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	return writeGeneration(ctx, dir, "", bs, cfg)
}

// Add indexes bs into a copy of the live generation of dir, replacing
// bundles of the same API and version, and makes the copy live; only the
// new bundles are analysed and embedded. cfg.Embedder must match the one
// the index was built with (ErrEmbedderMismatch).
func Add(ctx context.Context, dir string, bs []bundles.Bundle, cfg BuildConfig) (*Manifest, error) {
	return Replace(ctx, dir, nil, bs, cfg)
}

// Replace is [Add] that also leaves out of the new generation every bundle
// of the live one for which drop reports true (nil drops none): removing a
// library, or replacing all of one version's bundles, is one new generation
// that readers switch to at once (docs/serving.md §3). It fails with
// ErrNoIndex when dir has no live generation.
func Replace(ctx context.Context, dir string, drop func(*bundles.Bundle) bool, bs []bundles.Bundle, cfg BuildConfig) (*Manifest, error) {
	bs, cut, err := checkBundles(bs, cfg.Limits, cfg.logger())
	if err != nil {
		return nil, err
	}
	cfg.cut = cut
	cfg.drop = drop
	lock, err := acquireBuild(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	gen, rlock, err := openGeneration(dir)
	if err != nil {
		return nil, err
	}
	defer rlock.Close()
	return writeGeneration(ctx, dir, gen, bs, cfg)
}

// writeGeneration writes a new generation holding base's bundles (if base
// is not "") updated with bs, then switches CURRENT to it.
func writeGeneration(ctx context.Context, dir, base string, bs []bundles.Bundle, cfg BuildConfig) (m *Manifest, err error) {
	log := cfg.logger()
	emb := cfg.embedder()
	start := time.Now()
	gen, err := nextGen(dir)
	if err != nil {
		return nil, fmt.Errorf("index dir %s: %w", dir, err)
	}
	gdir := filepath.Join(dir, gen)
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return nil, fmt.Errorf("create generation: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(gdir)
		}
	}()
	if err := os.WriteFile(filepath.Join(gdir, readersLock), nil, 0o644); err != nil {
		return nil, err
	}

	all := bs
	var (
		lex *lexicalStore
		vs  *vectorStore
	)
	if base == "" {
		if lex, err = createLexicalStore(gdir); err != nil {
			return nil, err
		}
		vs = newVectorStore()
	} else {
		bdir := filepath.Join(dir, base)
		old, err := readManifest(bdir)
		if err != nil {
			return nil, err
		}
		if emb, err = resolveEmbedder(cfg.Embedder, bdir, old.Embedder.ID, old.Embedder.Dim); err != nil {
			return nil, err
		}
		if emb == nil {
			emb = NewHashEmbedder(0)
		}
		if old.Embedder.ID != emb.ID() {
			return nil, fmt.Errorf("%w: index built with %s, add uses %s (rebuild, or pass the same embedder)", ErrEmbedderMismatch, old.Embedder.ID, emb.ID())
		}
		oldBundles, _, err := bundles.ReadBundles(filepath.Join(bdir, bundlesFile), jsonl.ReadOptions{})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		for _, d := range []string{lexicalDir, lexicalCodeDir} {
			if err := copyDir(filepath.Join(bdir, d), filepath.Join(gdir, d)); err != nil {
				return nil, fmt.Errorf("copy lexical index: %w", err)
			}
		}
		if lex, err = openLexicalStore(gdir, true); err != nil {
			return nil, err
		}
		if vs, err = loadVectorStore(filepath.Join(bdir, vectorsFile)); err != nil {
			lex.Close()
			return nil, err
		}
		replaced := map[string]bool{}
		for i := range bs {
			replaced[bundleKey(&bs[i])] = true
		}
		var ids []string
		all = nil
		for i := range oldBundles {
			k := bundleKey(&oldBundles[i])
			if replaced[k] || cfg.drop != nil && cfg.drop(&oldBundles[i]) {
				for _, c := range AllComponents {
					ids = append(ids, k+"#"+c)
				}
				continue
			}
			all = append(all, oldBundles[i])
		}
		all = append(all, bs...)
		if err := lex.remove(ids); err != nil {
			lex.Close()
			return nil, err
		}
		if err := vs.remove(ctx, ids); err != nil {
			lex.Close()
			return nil, err
		}
	}

	var units []unit
	for i := range bs {
		units = append(units, unitsOf(&bs[i])...)
	}
	var bar *progressbar.ProgressBar
	progress := func(int) {}
	if cfg.Progress != nil {
		bar = progressbar.NewOptions(2*len(units), progressbar.OptionSetWriter(cfg.Progress),
			progressbar.OptionSetDescription("indexing"), progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		progress = func(n int) { bar.Add(n) }
	}
	// Lexical and vector legs are independent: build them concurrently
	// (the LSA fit, when there is one, overlaps the lexical leg too).
	lexErr := make(chan error, 1)
	go func() { lexErr <- lex.add(ctx, units, progress) }()
	var verr error
	if l, ok := emb.(*LSAEmbedder); ok {
		if emb, verr = fitLSA(ctx, l, units, gdir, log); verr != nil {
			emb = l
		}
	}
	if verr == nil {
		verr = vs.add(ctx, emb, units, progress)
	}
	lerr := <-lexErr
	if cerr := lex.Close(); cerr != nil && lerr == nil {
		lerr = fmt.Errorf("close lexical index: %w", cerr)
	}
	if bar != nil {
		bar.Finish()
	}
	if lerr != nil {
		return nil, lerr
	}
	if verr != nil {
		return nil, verr
	}
	if err := vs.save(filepath.Join(gdir, vectorsFile)); err != nil {
		return nil, err
	}
	if err := bundles.WriteBundles(filepath.Join(gdir, bundlesFile), all); err != nil {
		return nil, fmt.Errorf("write bundles: %w", err)
	}
	m = manifestOf(gen, all, emb)
	m.Skipped, m.Cut = cfg.Skipped.clone(), cfg.cut.clone()
	if base != "" {
		// The base generation's units are kept as they were made, and
		// what its build skipped is still missing.
		if bm, err := readManifest(filepath.Join(dir, base)); err == nil {
			m.UnitRules = min(m.UnitRules, bm.UnitRules)
			m.Skipped, m.Cut = bm.Skipped.merge(cfg.Skipped), bm.Cut.merge(cfg.cut)
		}
	}
	if err := writeManifest(gdir, m); err != nil {
		return nil, err
	}
	// A build cancelled before this point never becomes live, even one
	// with nothing left to analyse (a removal).
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	if err := switchCurrent(dir, gen); err != nil {
		return nil, fmt.Errorf("switch to %s: %w", gen, err)
	}
	removeStale(dir, gen)
	log.Info("index built", "dir", dir, "generation", gen, "bundles", m.Bundles, "units", m.Units,
		"new_units", len(units), "seconds", time.Since(start).Seconds())
	return m, nil
}

// fitLSA fits l on units unless it is fitted already, and saves the model
// in the generation directory gdir.
func fitLSA(ctx context.Context, l *LSAEmbedder, units []unit, gdir string, log *slog.Logger) (*LSAEmbedder, error) {
	if !l.Fitted() {
		t := time.Now()
		f, err := l.fit(ctx, units)
		if err != nil {
			return nil, fmt.Errorf("fit LSA embedder: %w", err)
		}
		log.Info("LSA embedder fitted", "id", f.ID(), "units", f.model.Units, "terms", len(f.model.Terms), "seconds", time.Since(t).Seconds())
		if n := len(f.model.Sigma); 2*n < f.model.K { // a few missing dimensions are harmless
			log.Warn("LSA: fewer latent dimensions than asked could be fitted; the rest are zero (build with a smaller --embed-dim)",
				"asked", f.model.K, "fitted", n, "units", f.model.Units)
		}
		l = f
	}
	return l, l.save(gdir)
}

// manifestOf counts all into a manifest.
func manifestOf(gen string, all []bundles.Bundle, emb Embedder) *Manifest {
	m := &Manifest{
		Format: ManifestFormat, Generation: gen, Created: time.Now().UTC(), Scoring: "bm25",
		Embedder: EmbedderInfo{ID: emb.ID(), Dim: emb.Dim()}, Bundles: len(all),
		Libraries: map[string]int{}, Versions: map[string]map[string]int{},
		Components: map[string]int{}, Novelty: map[string]int{}, UnitRules: UnitRules,
	}
	for i := range all {
		b := &all[i]
		m.Libraries[b.Library]++
		if m.Versions[b.Library] == nil {
			m.Versions[b.Library] = map[string]int{}
		}
		m.Versions[b.Library][bundleVersion(b)]++
		m.Novelty[novelty(b)]++
		for _, u := range unitsOf(b) {
			m.Components[u.Component]++
			m.Units++
		}
	}
	return m
}

// BuiltCurrent reports whether the live index in dir was built with the
// embedder a zero [BuildConfig] uses (the built-in LSA embedder with its
// default settings, whatever model it fitted) and the current [UnitRules],
// so that a caller like `novelapi up` can rebuild an index left by an
// older default or older unit rules. It fails when dir holds no readable
// index.
func BuiltCurrent(dir string) (bool, error) {
	gen, err := readCurrent(dir)
	if err != nil {
		return false, err
	}
	m, err := readManifest(filepath.Join(dir, gen))
	if err != nil {
		return false, err
	}
	def := BuildConfig{}.embedder().ID()
	return m.UnitRules == UnitRules && (m.Embedder.ID == def || fittedWith(m.Embedder.ID, def)), nil
}
