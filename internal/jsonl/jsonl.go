// Package jsonl reads and writes JSONL files (one JSON object per line), the
// shape of every published NovelAPIBench format (docs/protocol.md §1): reads
// that name the file and 1-based line of a malformed record, atomic whole-file
// writes, and fsynced appends that repair a torn last line.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"

	"github.com/novelapi/novelapi/internal/atomicfile"
)

// ReadOptions controls [Read]. The zero value stops at the first
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
	// [ScanStats], for errors about a record's content.
	Line int
}

// Read reads every record of the JSONL file at path, one JSON object
// per line, into values of type T.
//
// Blank lines are ignored; lines may be arbitrarily long. Unknown fields are
// ignored. A malformed line (invalid JSON, not an object, wrong field type)
// yields a *[ParseError] naming path and the 1-based line: Read returns
// it (with the records read so far) unless opts.SkipBad is set, in which
// case the line is skipped and counted in the stats. I/O errors always stop
// the read.
func Read[T any](path string, opts ReadOptions) ([]T, ReadStats, error) {
	var (
		out   []T
		stats ReadStats
	)
	for rec, err := range scan[T](path, &stats) {
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

// Scan returns an iterator over the records of the JSONL file at path.
// It yields (record, nil) for each good line and (zero, *[ParseError]) for
// each malformed one, then goes on; the caller decides whether to stop. An
// error opening or reading the file is yielded once and ends the sequence.
// The file is opened when iteration starts and closed when it ends.
func Scan[T any](path string) iter.Seq2[T, error] {
	return scan[T](path, nil)
}

// ScanStats is [Scan] that keeps stats.Line at the line of the
// record it yields (and stats.Blank), so that a caller rejecting a record's
// content can name its line.
func ScanStats[T any](path string, stats *ReadStats) iter.Seq2[T, error] {
	return scan[T](path, stats)
}

func scan[T any](path string, stats *ReadStats) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		f, err := os.Open(path)
		if err != nil {
			var zero T
			yield(zero, fmt.Errorf("read records: %w", err))
			return
		}
		defer f.Close()
		decode[T](f, path, stats)(yield)
	}
}

// Decode returns an iterator over the JSONL records read from r, with
// the semantics of [Scan]; name labels ParseErrors (a file name, or ""
// for an unnamed stream).
func Decode[T any](r io.Reader, name string) iter.Seq2[T, error] {
	return decode[T](r, name, nil)
}

var bom = []byte("\xef\xbb\xbf")

func decode[T any](r io.Reader, name string, stats *ReadStats) iter.Seq2[T, error] {
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

// Encode writes v to w as one JSONL line: compact JSON without HTML
// escaping, then "\n".
func Encode(w io.Writer, v any) error {
	data, err := MarshalNoEscape(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Write writes recs to path as JSONL with [atomicfile.WriteFunc]
// (atomically, making path's directory when missing), mode 0644.
func Write[T any](path string, recs []T) error {
	return atomicfile.WriteFunc(path, 0o644, func(w io.Writer) error {
		for i := range recs {
			if err := Encode(w, recs[i]); err != nil {
				return fmt.Errorf("write %s: record %d: %w", path, i+1, err)
			}
		}
		return nil
	})
}

// An Appender appends records to a JSONL file, one line per Write, and
// fsyncs after each, so a resumable run that is killed loses at most the
// record being written. It is safe for concurrent use. Close it when done.
type Appender[T any] struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	dropped int64
}

// OpenAppend opens (creating if needed) the JSONL file at path for
// appending. If the file ends in a partial line, as left by a crash during a
// write, that line is cut off when it is not valid JSON and terminated with
// "\n" when it is; [Appender.Dropped] reports the bytes cut.
func OpenAppend[T any](path string) (*Appender[T], error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open records: %w", err)
	}
	w := &Appender[T]{f: f, path: path}
	if err := w.repairTail(); err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return w, nil
}

// repairTail makes the file end in "\n" (or be empty), see OpenAppend.
func (w *Appender[T]) repairTail() error {
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
func (w *Appender[T]) Dropped() int64 { return w.dropped }

// Path returns the file being appended to.
func (w *Appender[T]) Path() string { return w.path }

// Write appends rec as one line and fsyncs the file.
func (w *Appender[T]) Write(rec T) error {
	data, err := MarshalNoEscape(rec)
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
func (w *Appender[T]) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// A ParseError reports a malformed record in a JSONL file: the file, the
// 1-based line and the decoding error.
type ParseError struct {
	Path string // file name as given to the reader; "" for an unnamed stream
	Line int    // 1-based
	Err  error  // from encoding/json, or a record-shape error
}

func (e *ParseError) Error() string {
	path := e.Path
	if path == "" {
		path = "<stream>"
	}
	return fmt.Sprintf("%s:%d: %v", path, e.Line, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// MarshalNoEscape is json.Marshal without HTML escaping, so that code
// containing <, > and & stays readable in the files we write.
func MarshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
