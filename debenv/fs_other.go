//go:build !linux

package debenv

import "errors"

var errNoExchange = errors.New("sandbox: atomic exchange unsupported")

// exchange is unsupported off Linux; the caller falls back to two renames.
func exchange(a, b string) error { return errNoExchange }

// detach does nothing off Linux, where builds never mount anything.
func detach(mp string) {}
