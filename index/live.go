package index

import (
	"errors"
	"log/slog"
	"sync"
	"time"
)

// DefaultCheckEvery is how often a [Live] index reads CURRENT at most.
const DefaultCheckEvery = time.Second

// LiveOptions configures [OpenLive]. The zero value opens with the
// built-in embedder and checks CURRENT at most once a second.
type LiveOptions struct {
	OpenOptions
	// CheckEvery is the least time between two reads of CURRENT by
	// [Live.Acquire]; 0 means DefaultCheckEvery, negative means never
	// (only [Live.Reload] switches).
	CheckEvery time.Duration
}

// A Live index serves the live generation of an index directory and
// follows it: when a build or add makes another generation live (its
// CURRENT file names it), the next [Live.Acquire] after CheckEvery opens
// that generation and swaps it in, so callers see each new generation
// without reopening. Readers of the previous generation keep it until
// they release it; it is closed when the last one does. A generation
// that fails to open is logged and skipped, and the one served stays.
//
// A Live is safe for concurrent use. It starts no goroutine: the caller
// of Acquire that notices a new generation opens it, while other callers
// go on with the one they get.
type Live struct {
	dir   string
	opts  OpenOptions
	every time.Duration
	log   *slog.Logger

	refreshMu sync.Mutex // held while CURRENT is read and a generation opened

	mu      sync.Mutex
	cur     *pinned
	checked time.Time // last read of CURRENT
	failed  string    // generation that last failed to open
	closed  bool
}

// pinned is one open generation and its readers.
type pinned struct {
	ix      *Index
	refs    int
	retired bool // no longer live: closed when refs reaches 0
}

// OpenLive opens the live generation of dir (as [Open] does) to follow it.
func OpenLive(dir string, opts LiveOptions) (*Live, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	ix, err := Open(dir, opts.OpenOptions)
	if err != nil {
		return nil, err
	}
	every := opts.CheckEvery
	if every == 0 {
		every = DefaultCheckEvery
	}
	return &Live{dir: dir, opts: opts.OpenOptions, every: every, log: log, cur: &pinned{ix: ix}, checked: time.Now()}, nil
}

// Acquire returns the generation to serve one request from, first
// switching to a newer live generation if CheckEvery has passed since
// CURRENT was last read. The returned index stays open until release is
// called, even when a newer generation is swapped in meanwhile; release
// must be called exactly once. After Close, Acquire still returns the
// closed index, whose searches fail with ErrClosed.
func (l *Live) Acquire() (ix *Index, release func()) {
	if l.due() && l.refreshMu.TryLock() {
		if l.due() { // not done by a caller that held refreshMu
			l.refresh()
		}
		l.refreshMu.Unlock()
	}
	l.mu.Lock()
	p := l.cur
	p.refs++
	l.mu.Unlock()
	var once sync.Once
	return p.ix, func() { once.Do(func() { l.release(p) }) }
}

// Generation returns the name of the generation Acquire returns now.
func (l *Live) Generation() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur.ix.gen
}

// Reload switches to the live generation of the directory now, if it is
// not the one served. It returns the error of opening it (the generation
// served then stays); it reports whether it switched.
func (l *Live) Reload() (bool, error) {
	l.refreshMu.Lock()
	defer l.refreshMu.Unlock()
	l.mu.Lock()
	closed := l.closed
	l.failed = ""
	l.mu.Unlock()
	if closed {
		return false, ErrClosed
	}
	return l.refresh()
}

// due reports whether Acquire should read CURRENT.
func (l *Live) due() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.every > 0 && !l.closed && time.Since(l.checked) >= l.every
}

// refresh reads CURRENT and swaps in the generation it names when that
// is another one. The caller holds refreshMu.
func (l *Live) refresh() (switched bool, err error) {
	defer func() {
		l.mu.Lock()
		l.checked = time.Now()
		l.mu.Unlock()
	}()
	gen, err := readCurrent(l.dir)
	l.mu.Lock()
	same := err == nil && (gen == l.cur.ix.gen || gen == l.failed)
	l.mu.Unlock()
	if err != nil || same {
		return false, err
	}
	ix, err := Open(l.dir, l.opts)
	if err != nil {
		l.log.Warn("index: new generation not served; the previous one stays", "dir", l.dir, "generation", gen, "err", err)
		l.mu.Lock()
		l.failed = gen
		l.mu.Unlock()
		return false, err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return false, errors.Join(ErrClosed, ix.Close())
	}
	old := l.cur
	l.cur = &pinned{ix: ix}
	old.retired = true
	drop := old.refs == 0
	l.mu.Unlock()
	l.log.Info("index: serving a new generation", "dir", l.dir, "generation", ix.gen, "previous", old.ix.gen, "bundles", ix.man.Bundles)
	if drop {
		if err := old.ix.Close(); err != nil {
			l.log.Warn("index: close previous generation", "generation", old.ix.gen, "err", err)
		}
	}
	return true, nil
}

// release drops one reader of p, closing p once it is retired and unread.
func (l *Live) release(p *pinned) {
	l.mu.Lock()
	p.refs--
	drop := p.retired && p.refs == 0
	l.mu.Unlock()
	if drop {
		if err := p.ix.Close(); err != nil {
			l.log.Warn("index: close previous generation", "generation", p.ix.gen, "err", err)
		}
	}
}

// Close closes the generation served; one still acquired is closed when
// released. It is idempotent.
func (l *Live) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	p := l.cur
	p.retired = true
	drop := p.refs == 0
	l.mu.Unlock()
	if drop {
		return p.ix.Close()
	}
	return nil
}
