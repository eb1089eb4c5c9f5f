package bundles

import (
	"errors"
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
