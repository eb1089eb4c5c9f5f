package sandbox

import (
	"io"
	"sync"
	"sync/atomic"
)

// outputBudget is the total output budget of one run, shared by its stdout
// and stderr writers (docs/sandbox.md §4.2 "total output budget", P13). When the
// bytes written through all writers exceed limit, onExceed is called once
// (it kills the run) and hit reports true.
type outputBudget struct {
	limit    int64
	total    atomic.Int64
	hitFlag  atomic.Bool
	once     sync.Once
	onExceed func()
}

func newOutputBudget(limit int64, onExceed func()) *outputBudget {
	return &outputBudget{limit: limit, onExceed: onExceed}
}

// add records n more bytes and fires onExceed the first time the total
// passes the limit.
func (b *outputBudget) add(n int) {
	if b == nil {
		return
	}
	if b.total.Add(int64(n)) > b.limit {
		b.hitFlag.Store(true)
		b.once.Do(func() {
			if b.onExceed != nil {
				b.onExceed()
			}
		})
	}
}

// hit reports whether the budget was exceeded.
func (b *outputBudget) hit() bool { return b != nil && b.hitFlag.Load() }

// cappedWriter keeps the first max bytes written to it and counts the rest,
// so a flood never grows the harness's memory (P13). The cut is exact: a
// single write straddling the cap is split (the bug of piston PR #643).
// Write never fails, so the copy goroutine keeps draining the pipe (P14).
// It is safe for concurrent use.
type cappedWriter struct {
	mu      sync.Mutex
	buf     []byte
	max     int64
	dropped int64
	budget  *outputBudget // may be nil
}

func newCappedWriter(max int64, budget *outputBudget) *cappedWriter {
	return &cappedWriter{max: max, budget: budget}
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	room := w.max - int64(len(w.buf))
	if room < 0 {
		room = 0
	}
	keep := int64(len(p))
	if keep > room {
		keep = room
	}
	w.buf = append(w.buf, p[:keep]...)
	w.dropped += int64(len(p)) - keep
	w.mu.Unlock()
	w.budget.add(len(p))
	return len(p), nil
}

// Bytes returns a copy of the kept bytes and the count of dropped ones.
func (w *cappedWriter) result() ([]byte, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]byte, len(w.buf))
	copy(out, w.buf)
	return out, w.dropped
}

// outputsReader gathers the files of OutDir into Result.Outputs with three
// caps (per file, total bytes, file count) and counts what it leaves out,
// so a flood of bytes or files in OutDir never grows the harness's memory
// beyond the caps. Files are offered one at a time; it is not safe for
// concurrent use.
type outputsReader struct {
	perFile, total int64 // bytes kept of one file, of all files
	files          int   // files kept
	out            map[string][]byte
	kept           int64
	dropped        int64
	droppedFiles   int
}

func newOutputsReader(l Limits) *outputsReader {
	return &outputsReader{perFile: l.StreamCap, total: l.OutSize, files: l.OutFiles, out: map[string][]byte{}}
}

// add offers the regular file name (relative to OutDir, slash-separated)
// of size bytes, whose content r yields. It reads at most what the caps
// leave room for.
func (o *outputsReader) add(name string, size int64, r io.Reader) {
	room := min(o.perFile, o.total-o.kept)
	if len(o.out) >= o.files || (room <= 0 && size > 0) {
		o.droppedFiles++
		o.dropped += size
		return
	}
	data, _ := io.ReadAll(io.LimitReader(r, room))
	o.out[name] = data
	o.kept += int64(len(data))
	o.dropped += max(size-int64(len(data)), 0)
}

// apply records the outputs and what was dropped in res.
func (o *outputsReader) apply(res *Result) {
	if len(o.out) > 0 {
		res.Outputs = o.out
	}
	res.OutputsDropped, res.OutputsDroppedFiles = o.dropped, o.droppedFiles
}
