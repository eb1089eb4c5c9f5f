// Package progress makes the progress bars of novelapi's long runs: one
// look (count, rate, ETA) on stderr, and a silent bar when there is no
// terminal to draw on, so callers can always call Add.
package progress

import (
	"fmt"
	"io"

	"github.com/schollz/progressbar/v3"
)

// New returns a bar of n steps described by desc, drawn on w; a nil w gives
// a bar that draws nothing. The bar is safe for concurrent Add calls.
func New(w io.Writer, n int, desc string) *progressbar.ProgressBar {
	if w == nil {
		return progressbar.NewOptions(n, progressbar.OptionSetWriter(io.Discard), progressbar.OptionSetVisibility(false))
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true), progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
}
