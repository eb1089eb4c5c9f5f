package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks an error caused by the command line; run exits 2 for it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// partialError marks a command that did its job for only part of its
// input (up with libraries left out); run exits 3 for it, after the
// command printed what it did.
type partialError struct{ msg string }

func (e *partialError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmtSprintf(format, args...)}
}

func isUsage(err error) bool {
	if _, ok := errors.AsType[*usageError](err); ok {
		return true
	}
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "unknown flag") ||
		strings.HasPrefix(s, "unknown shorthand flag") || strings.Contains(s, "requires at least") ||
		strings.Contains(s, "accepts ") || strings.HasPrefix(s, "invalid argument") ||
		strings.Contains(s, "flag needs an argument") || strings.Contains(s, "required flag")
}

// globals holds what every subcommand shares: streams, the data directory and the logger.
type globals struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	home   string // $NOVELAPI_HOME, default user cache dir + /novelapi
	log    *slog.Logger
	quiet  bool
	// failure is what a command that fails under --json had done; run
	// prints it with the error (writeJSONResult) to failureOut (nil:
	// stdout). jsonDone marks a command that printed its --json object
	// itself, error included, to a stream other than stdout.
	failure    any
	failureOut io.Writer
	jsonDone   bool
	// flagErr marks a failure to parse the command's flags: the flags
	// after the bad one were never parsed, so --json is looked for in the
	// arguments ([jsonInArgs]).
	flagErr bool
}

// homeDir returns $NOVELAPI_HOME or the user's cache directory + "/novelapi".
func homeDir() string {
	if h := os.Getenv("NOVELAPI_HOME"); h != "" {
		return h
	}
	if c, err := os.UserCacheDir(); err == nil {
		return filepath.Join(c, "novelapi")
	}
	return filepath.Join(os.TempDir(), "novelapi")
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, *globals) {
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:           "novelapi",
		Short:         "Discover, serve and evaluate knowledge of novel Python APIs",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			if g.home == "" {
				g.home = homeDir()
			}
			level := slog.LevelInfo
			if g.quiet {
				level = slog.LevelWarn
			}
			g.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&g.home, "home", "", "data directory (default $NOVELAPI_HOME or the user cache dir + /novelapi)")
	root.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "only warnings and errors on stderr")
	for _, f := range commands {
		root.AddCommand(f(g))
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		g.flagErr = true
		return err
	})
	return root, g
}

// commands lists the subcommand constructors; each lives in its own file.
var commands = []func(*globals) *cobra.Command{
	newEnvCmd,
	newExecCmd,
	newDiscoverCmd,
	newExtractCmd,
	newIndexCmd,
	newSearchCmd,
	newServeCmd,
	newEvalCmd,
	newTasksCmd,
	newGenerateCmd,
	newImportCmd,
	newRenderCmd,
	newUpCmd,
	newAddCmd,
	newRmCmd,
}
