package bundles

import (
	"errors"
	"fmt"
)

// Sentinel errors of package bundles, compared with errors.Is.
var (
	// ErrUnknownCondition is returned (wrapped) by [ParseCondition] for a
	// string that names none of the 12 conditions.
	ErrUnknownCondition = errors.New("bundles: unknown knowledge condition")
	// ErrUnknownComponent is returned (wrapped) by [ParseComponents].
	ErrUnknownComponent = errors.New("bundles: unknown knowledge component")
	// ErrUnknownAPI is returned (wrapped) by [Find] when no bundle has the
	// requested name.
	ErrUnknownAPI = errors.New("bundles: unknown API")
	// ErrEmptyKnowledge is returned (wrapped) by [RenderNonEmpty] when a
	// condition other than none renders no text for a bundle.
	ErrEmptyKnowledge = errors.New("bundles: condition renders empty knowledge")
)

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
