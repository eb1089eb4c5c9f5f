package debenv

import "errors"

// ErrUnknownEnvironment reports an environment name that the store does not
// hold.
var ErrUnknownEnvironment = errors.New("debenv: unknown environment")
