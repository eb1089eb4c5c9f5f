// Command novelapi discovers novel Python APIs, decomposes them into
// knowledge bundles, indexes and serves them to coding agents over MCP, and
// evaluates model completions in sandboxes. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line args and returns the process exit code:
// 0 success, 1 runtime error, 2 usage error, 3 partial success (up with
// libraries left out).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "novelapi: %v\n", err)
		if isUsage(err) {
			return 2
		}
		if _, ok := errors.AsType[*partialError](err); ok {
			return 3
		}
		return 1
	}
	return 0
}
