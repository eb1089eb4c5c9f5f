package debenv

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/novelapi/novelapi/sandbox"
)

//go:embed py/envprobe.py
var envProbeScript string

// probedLibrary is one library of what py/envprobe.py prints.
type probedLibrary struct {
	Dist    string   `json:"dist"`
	Version string   `json:"version"`
	Source  string   `json:"source"` // "metadata" or "__version__"
	Imports []string `json:"imports"`
	Import  string   `json:"import"`
	Error   string   `json:"error"`
}

// probeResult is what py/envprobe.py prints.
type probeResult struct {
	Python    string                   `json:"python"`
	Libraries map[string]probedLibrary `json:"libraries"`
}

// probeEnvironment runs py/envprobe.py inside the root filesystem root with
// the bwrap backend (read-only root, no network, cleared environment) and
// returns what it reports (docs/environments.md §4): the Python version and,
// per library, the distribution, import names and version read from its
// packages' files and whether it imports. When one run for all libraries dies (an import that
// crashes the interpreter), each library is probed on its own, and one
// whose run dies is reported with the exit status and the end of stderr,
// so the others are still read.
func probeEnvironment(ctx context.Context, root string, libs []Library, log *slog.Logger) (probeResult, error) {
	runner, err := sandbox.NewBwrap(sandbox.BwrapConfig{Log: log})
	if err != nil {
		return probeResult{}, fmt.Errorf("read libraries inside the environment: %w", err)
	}
	r, err := runProbe(ctx, runner, root, libs)
	if err == nil || len(libs) < 2 || ctx.Err() != nil {
		return r, err
	}
	if log != nil {
		log.Warn("probing all libraries at once failed; probing each on its own", "err", err)
	}
	out := probeResult{Libraries: map[string]probedLibrary{}}
	for _, l := range libs {
		one, err := runProbe(ctx, runner, root, []Library{l})
		if err != nil {
			if ctx.Err() != nil {
				return probeResult{}, err
			}
			out.Libraries[l.Name] = probedLibrary{Error: err.Error()}
			continue
		}
		out.Python = one.Python
		out.Libraries[l.Name] = one.Libraries[l.Name]
	}
	if out.Python == "" {
		r, err := runProbe(ctx, runner, root, nil)
		if err != nil {
			return probeResult{}, err
		}
		out.Python = r.Python
	}
	return out, nil
}

// runProbe runs py/envprobe.py once for libs.
func runProbe(ctx context.Context, runner sandbox.Runner, root string, libs []Library) (probeResult, error) {
	type lib struct {
		Name     string   `json:"name"`
		Packages []string `json:"packages"`
		Import   string   `json:"import"`
	}
	arg := []lib{}
	for _, l := range libs {
		arg = append(arg, lib{l.Name, l.Packages, l.Import})
	}
	argJSON, _ := json.Marshal(arg)
	res, err := runner.Run(ctx, sandbox.Spec{
		Environment: &sandbox.Environment{Name: filepath.Base(filepath.Dir(root)), Root: root},
		Files:       []sandbox.File{{Path: "envprobe.py", Data: []byte(envProbeScript)}},
		Argv:        []string{"python3", "-I", "-B", "/job/envprobe.py", string(argJSON)},
		// Importing large libraries (torch) takes time, memory and threads.
		Limits: sandbox.Limits{Wall: 10 * time.Minute, Memory: 8 << 30, PIDs: 1024},
	})
	if err != nil {
		return probeResult{}, fmt.Errorf("read libraries inside the environment: %w", err)
	}
	if res.ExitCode != 0 {
		return probeResult{}, fmt.Errorf("python3 exited %d (signal %q, limit %q) reading the libraries inside the environment: %s",
			res.ExitCode, res.Signal, res.LimitHit, tail(strings.TrimSpace(string(res.Stderr)), 600))
	}
	var r probeResult
	if err := json.Unmarshal(res.Stdout, &r); err != nil {
		return probeResult{}, fmt.Errorf("read libraries inside the environment: bad probe output %q: %v", tail(string(res.Stdout), 600), err)
	}
	return r, nil
}

// tail returns the last n bytes of s, marked when cut.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
