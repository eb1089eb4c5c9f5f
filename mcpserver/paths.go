package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// readRoots returns the directories whose files evaluate may read when an
// agent names a path: Config.ReadRoots, the runs directory and the
// directories of the configured task pool and call records, each made
// absolute and, when it exists, with symbolic links resolved.
func (s *Server) readRoots() []string {
	roots := slices.Clone(s.cfg.ReadRoots)
	runs := s.cfg.Eval.RunsDir
	if runs == "" {
		runs = filepath.Join(os.TempDir(), "novelapi-runs") // as handleEvaluate
	}
	roots = append(roots, runs)
	for _, p := range []string{s.cfg.Eval.TasksPath, s.cfg.Eval.ExpectedPath} {
		if p != "" {
			roots = append(roots, filepath.Dir(p))
		}
	}
	var out []string
	for _, r := range roots {
		if r == "" {
			continue
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out
}

// within reports whether path is root or lies under it; both are absolute
// and clean.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkReadPath returns the absolute, symlink-free form of path, which an
// agent gave as the tool argument param, if it names a regular file under
// one of the server's read roots ([Config.ReadRoots]). Otherwise it returns
// an argument error that names the allowed directories and says nothing
// about the file: not its content, and not even whether a path outside the
// roots exists. Symbolic links are resolved before the check, so a link
// inside a root cannot lead out of it.
func (s *Server) checkReadPath(tool, param, path string) (string, error) {
	roots := s.readRoots()
	refuse := func() error {
		return argErrorf("%s: %s %q is outside the directories this server reads files from (%s); put the file under one of them, or ask the user to start the server with --allow-path DIR",
			tool, param, truncate(path, 200), strings.Join(roots, ", "))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", refuse()
	}
	if !slices.ContainsFunc(roots, func(r string) bool { return within(r, abs) }) {
		// Refused before any file system call on the path.
		return "", refuse()
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", argErrorf("%s: %s %q does not exist", tool, param, truncate(path, 200))
		}
		return "", argErrorf("%s: %s %q cannot be read", tool, param, truncate(path, 200))
	}
	if !slices.ContainsFunc(roots, func(r string) bool { return within(r, real) }) {
		return "", refuse()
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", argErrorf("%s: %s %q is not a regular file", tool, param, truncate(path, 200))
	}
	return real, nil
}

// loadError describes a failure to read a JSONL file an agent named
// without quoting the file: a parse error gives the line number only (the
// parser's message can quote the offending bytes), anything else says the
// file could not be read.
func loadError(tool, param, path string, err error) string {
	if pe, ok := errors.AsType[*jsonl.ParseError](err); ok {
		return fmt.Sprintf("%s: %s %q: line %d is not a valid record of this file type", tool, param, truncate(path, 200), pe.Line)
	}
	return fmt.Sprintf("%s: %s %q could not be read", tool, param, truncate(path, 200))
}
