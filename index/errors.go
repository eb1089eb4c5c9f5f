package index

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by the index. Compare with errors.Is.
var (
	// ErrNoIndex means the directory holds no complete index.
	ErrNoIndex = errors.New("index: no index")
	// ErrCorrupt means the index files are damaged or of another format.
	ErrCorrupt = errors.New("index: corrupt index")
	// ErrBuildRunning means another build or add holds the directory.
	ErrBuildRunning = errors.New("index: another build is running")
	// ErrEmptyQuery means the query text is empty or only spaces.
	ErrEmptyQuery = errors.New("index: empty query")
	// ErrQueryTooLong means the query text exceeds MaxQueryBytes.
	ErrQueryTooLong = errors.New("index: query too long")
	// ErrVectorDisabled means the vector leg is off for this index (see
	// [Index.Notices]); the bm25 retriever still works.
	ErrVectorDisabled = errors.New("index: vector search is off")
	// ErrEmbedderMismatch means an add used another embedder than the build.
	ErrEmbedderMismatch = errors.New("index: embedder differs from the index's")
	// ErrBadBundle means a bundle lacks a field the index needs.
	ErrBadBundle = errors.New("index: bad bundle")
	// ErrClosed means the Index was closed.
	ErrClosed = errors.New("index: closed")
)

// An ArgError reports a query argument outside its valid values, listing
// them so that callers (CLI, MCP agents) can correct the call.
type ArgError struct {
	Arg   string   // "library", "version", "component", "retriever", "condition"
	Value string   // what was given
	Valid []string // the accepted values
	// Matches are the valid values Value names when it names several (a
	// version prefix such as "2.2" of two libraries' versions); nil when
	// it names none.
	Matches []string
}

func (e *ArgError) Error() string {
	if len(e.Matches) > 1 {
		return fmt.Sprintf("index: ambiguous %s %q: it names %s (name the library or give more of the %s; valid: %s)",
			e.Arg, e.Value, strings.Join(e.Matches, " and "), e.Arg, strings.Join(e.Valid, ", "))
	}
	return fmt.Sprintf("index: unknown %s %q (valid: %s)", e.Arg, e.Value, strings.Join(e.Valid, ", "))
}
