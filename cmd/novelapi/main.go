// Command novelapi discovers novel Python APIs, decomposes them into
// knowledge bundles, indexes and serves them to coding agents over MCP, and
// evaluates model completions in sandboxes. See README.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
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
	out := &countingWriter{w: stdout}
	root, g := newRootCmd(stdin, out, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "novelapi: %v\n", err)
	// Under --json a script reads stdout: a failure is an object too,
	// unless the command printed its own.
	if cmd != nil && (jsonRequested(cmd) || g.flagErr && jsonInArgs(cmd, args)) && !g.jsonDone && (g.failureOut != nil || out.n == 0) {
		var w io.Writer = out
		if g.failureOut != nil {
			w = g.failureOut
		}
		if jerr := writeJSONResult(w, g.failure, err); jerr != nil {
			fmt.Fprintf(stderr, "novelapi: %v\n", jerr)
		}
	}
	return exitCode(err)
}

// jsonInArgs reports whether cmd has a --json flag and args set it
// (--json, or --json=V with V true) before any "--": when parsing stopped at
// a bad flag, a --json after it was never parsed, and a script reading
// stdout must get the error object whatever the order of its flags.
func jsonInArgs(cmd *cobra.Command, args []string) bool {
	if cmd.Flags().Lookup("json") == nil {
		return false
	}
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
		if v, ok := strings.CutPrefix(a, "--json="); ok {
			if b, err := strconv.ParseBool(v); err == nil && b {
				return true
			}
		}
	}
	return false
}

// jsonRequested reports whether cmd has a --json flag that is set.
func jsonRequested(cmd *cobra.Command) bool {
	f := cmd.Flags().Lookup("json")
	return f != nil && f.Value.String() == "true"
}
