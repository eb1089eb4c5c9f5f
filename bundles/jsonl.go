package bundles

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// ReadOptions controls [ReadJSONL]. The zero value stops at the first
// malformed record.
type ReadOptions struct {
	// SkipBad continues past malformed records, counting them in
	// [ReadStats] instead of failing (the CLI's --skip-bad).
	SkipBad bool
}

// MaxRecordedErrors bounds [ReadStats.Bad]; further skipped lines are only
// counted.
const MaxRecordedErrors = 100

// ReadStats describes one read of a JSONL file.
type ReadStats struct {
	Records int           // records decoded and returned
	Blank   int           // blank (whitespace-only) lines ignored
	Skipped int           // malformed lines skipped (only with SkipBad)
	Bad     []*ParseError // the first MaxRecordedErrors skipped lines' errors, in file order
	// Line is the 1-based line of the record or error last yielded by
	// [ScanJSONLStats], for errors about a record's content.
	Line int
}

// ReadJSONL reads every record of the JSONL file at path, one JSON object
// per line, into values of type T.
//
// Blank lines are ignored; lines may be arbitrarily long. Unknown fields are
// ignored. A malformed line (invalid JSON, not an object, wrong field type)
// yields a *[ParseError] naming path and the 1-based line: ReadJSONL returns
// it (with the records read so far) unless opts.SkipBad is set, in which
// case the line is skipped and counted in the stats. I/O errors always stop
// the read.
func ReadJSONL[T any](path string, opts ReadOptions) ([]T, ReadStats, error) {
	var (
		out   []T
		stats ReadStats
	)
	for rec, err := range scanJSONL[T](path, &stats) {
		if err != nil {
			if pe, ok := errors.AsType[*ParseError](err); ok && opts.SkipBad {
				stats.Skipped++
				if len(stats.Bad) < MaxRecordedErrors {
					stats.Bad = append(stats.Bad, pe)
				}
				continue
			}
			stats.Records = len(out)
			return out, stats, err
		}
		out = append(out, rec)
	}
	stats.Records = len(out)
	return out, stats, nil
}

// ScanJSONL returns an iterator over the records of the JSONL file at path.
// It yields (record, nil) for each good line and (zero, *[ParseError]) for
// each malformed one, then goes on; the caller decides whether to stop. An
// error opening or reading the file is yielded once and ends the sequence.
// The file is opened when iteration starts and closed when it ends.
func ScanJSONL[T any](path string) iter.Seq2[T, error] {
	return scanJSONL[T](path, nil)
}

// ScanJSONLStats is [ScanJSONL] that keeps stats.Line at the line of the
// record it yields (and stats.Blank), so that a caller rejecting a record's
// content can name its line.
func ScanJSONLStats[T any](path string, stats *ReadStats) iter.Seq2[T, error] {
	return scanJSONL[T](path, stats)
}

func scanJSONL[T any](path string, stats *ReadStats) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			var zero T
			yield(zero, fmt.Errorf("read records: %w", err))
			return
		}
		defer f.Close()
		decodeJSONL[T](f, path, stats)(yield)
	}
}

// DecodeJSONL returns an iterator over the JSONL records read from r, with
// the semantics of [ScanJSONL]; name labels ParseErrors (a file name, or ""
// for an unnamed stream).
func DecodeJSONL[T any](r io.Reader, name string) iter.Seq2[T, error] {
	return decodeJSONL[T](r, name, nil)
}

var bom = []byte("\xef\xbb\xbf")

func decodeJSONL[T any](r io.Reader, name string, stats *ReadStats) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		br := bufio.NewReaderSize(r, 1<<16)
		for lineNo := 1; ; lineNo++ {
			line, rerr := br.ReadBytes('\n')
			if rerr != nil && rerr != io.EOF {
				var zero T
				yield(zero, fmt.Errorf("read %s: line %d: %w", name, lineNo, rerr))
				return
			}
			if lineNo == 1 {
				line = bytes.TrimPrefix(line, bom)
			}
			trimmed := bytes.TrimSpace(line)
			switch {
			case len(trimmed) == 0:
				if stats != nil && (rerr == nil || len(line) > 0) {
					stats.Blank++
				}
			default:
				if stats != nil {
					stats.Line = lineNo
				}
				rec, err := decodeRecord[T](trimmed)
				if err != nil {
					if !yield(rec, &ParseError{Path: name, Line: lineNo, Err: err}) {
						return
					}
				} else if !yield(rec, nil) {
					return
				}
			}
			if rerr == io.EOF {
				return
			}
		}
	}
}

// errNotObject is the ParseError cause for a line that is valid JSON but not
// an object (every published JSONL format has one object per line).
var errNotObject = errors.New("record is not a JSON object")

func decodeRecord[T any](line []byte) (T, error) {
	var rec T
	if line[0] != '{' {
		if json.Valid(line) {
			return rec, errNotObject
		}
	}
	err := json.Unmarshal(line, &rec)
	return rec, err
}

// EncodeRecord writes v to w as one JSONL line: compact JSON without HTML
// escaping, then "\n".
func EncodeRecord(w io.Writer, v any) error {
	data, err := marshalNoEscape(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// WriteJSONL writes recs to path as JSONL, atomically: the records stream
// into a temporary file in the same directory, which is fsynced and renamed
// over path, so readers see the old file or the complete new one. The file
// mode is 0644.
func WriteJSONL[T any](path string, recs []T) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write records: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	for i := range recs {
		if err = EncodeRecord(bw, recs[i]); err != nil {
			return fmt.Errorf("write %s: record %d: %w", path, i+1, err)
		}
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir fsyncs a directory so a rename in it is durable; errors are
// ignored (some filesystems refuse to fsync directories).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// An AppendWriter appends records to a JSONL file, one line per Write, and
// fsyncs after each, so a resumable run that is killed loses at most the
// record being written. It is safe for concurrent use. Close it when done.
type AppendWriter[T any] struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	dropped int64
}

// OpenAppend opens (creating if needed) the JSONL file at path for
// appending. If the file ends in a partial line, as left by a crash during a
// write, that line is cut off when it is not valid JSON and terminated with
// "\n" when it is; [AppendWriter.Dropped] reports the bytes cut.
func OpenAppend[T any](path string) (*AppendWriter[T], error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open records: %w", err)
	}
	w := &AppendWriter[T]{f: f, path: path}
	if err := w.repairTail(); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return w, nil
}

// repairTail makes the file end in "\n" (or be empty), see OpenAppend.
func (w *AppendWriter[T]) repairTail() error {
	fi, err := w.f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size == 0 {
		return nil
	}
	// Find the last newline, reading backwards in chunks.
	const chunk = 1 << 16
	lastNL := int64(-1)
	buf := make([]byte, chunk)
	for end := size; end > 0 && lastNL < 0; {
		start := max(end-chunk, 0)
		n, err := w.f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			lastNL = start + int64(i)
		}
		end = start
	}
	if lastNL == size-1 {
		return nil
	}
	tail := make([]byte, size-lastNL-1)
	if _, err := w.f.ReadAt(tail, lastNL+1); err != nil && err != io.EOF {
		return err
	}
	if t := bytes.TrimSpace(tail); len(t) == 0 || !json.Valid(t) {
		if err := w.f.Truncate(lastNL + 1); err != nil {
			return err
		}
		w.dropped = int64(len(tail))
		return w.f.Sync()
	}
	if _, err := w.f.Write([]byte{'\n'}); err != nil {
		return err
	}
	return w.f.Sync()
}

// Dropped returns how many bytes of a partial last line OpenAppend cut off.
func (w *AppendWriter[T]) Dropped() int64 { return w.dropped }

// Path returns the file being appended to.
func (w *AppendWriter[T]) Path() string { return w.path }

// Write appends rec as one line and fsyncs the file.
func (w *AppendWriter[T]) Write(rec T) error {
	data, err := marshalNoEscape(rec)
	if err != nil {
		return fmt.Errorf("append %s: %w", w.path, err)
	}
	data = append(data, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("append %s: %w", w.path, os.ErrClosed)
	}
	if _, err := w.f.Write(data); err != nil {
		return fmt.Errorf("append %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("append %s: %w", w.path, err)
	}
	return nil
}

// Close closes the file. Closing twice is harmless.
func (w *AppendWriter[T]) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// ReadBundles reads a bundles.jsonl file (ours or the published
// benchmark's), see [ReadJSONL].
func ReadBundles(path string, opts ReadOptions) ([]Bundle, ReadStats, error) {
	return ReadJSONL[Bundle](path, opts)
}

// WriteBundles writes bundles atomically to path as bundles.jsonl, in the
// given order, see [WriteJSONL].
func WriteBundles(path string, bs []Bundle) error {
	return WriteJSONL(path, bs)
}

// Find returns the bundle whose api_name is name or, failing that, the
// first one listing name among its aliases, then among its public
// instances (Provenance.Instances: "scipy.stats.triang" finds
// scipy.stats.distributions.triang_gen). A name written with an import
// alias ("np.unstack", see [ExpandAlias]) is looked up as its library's.
// The error wraps [ErrUnknownAPI].
func Find(bs []Bundle, name string) (*Bundle, error) {
	full := ExpandAlias(name)
	for i := range bs {
		if bs[i].APIName == name || bs[i].APIName == full {
			return &bs[i], nil
		}
	}
	for i := range bs {
		if slices.Contains(bs[i].Names()[1:], full) {
			return &bs[i], nil
		}
	}
	for i := range bs {
		if slices.Contains(bs[i].PublicInstances(), full) {
			return &bs[i], nil
		}
	}
	return nil, fmt.Errorf("%w: %q (%d bundles)", ErrUnknownAPI, name, len(bs))
}
