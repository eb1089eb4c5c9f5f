package debenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// aptTargets are the arguments of `apt-get install` for pkgs in suite:
// for experimental, PKG/experimental for each package experimental's index
// (indexes[0]) has, so apt takes it, and what it needs that sid cannot
// give, from experimental and everything else from sid; else pkgs.
func aptTargets(pkgs []string, suite string, indexes []*PackageIndex) []string {
	out := slices.Clone(pkgs)
	if suite != "experimental" || len(indexes) == 0 || indexes[0].Suite != "experimental" {
		return out
	}
	for i, p := range out {
		if _, ok := indexes[0].Package(p); ok {
			out[i] = p + "/experimental"
		}
	}
	return out
}

// targetSuite is the suite a library's packages came from when apt was
// told to take one of them from another suite ("experimental"), else "".
func targetSuite(pkgs, targets []string) string {
	for _, t := range targets {
		name, su, ok := strings.Cut(t, "/")
		if ok && slices.Contains(pkgs, name) {
			return su
		}
	}
	return ""
}

// An aptConfig describes the apt stage of a build.
type aptConfig struct {
	Root     string   // the root filesystem debootstrap made
	Suite    string   // the environment's suite
	Mirror   string   // archive URL
	DebCache string   // host directory of cached .deb files, bound on /var/cache/apt/archives
	Targets  []string // apt-get install arguments ([aptTargets])
	LogPath  string
	Progress io.Writer
	Log      *slog.Logger
}

// aptInstall installs cfg.Targets inside cfg.Root with apt-get, run by
// bubblewrap with the root filesystem as its root (as real root, with the
// host's network, and its own /proc and /dev, which vanish with it: no
// mount is left on the host). It writes the suite's apt sources, lends the
// host's /etc/resolv.conf for the downloads and keeps services from
// starting (policy-rc.d), and undoes the last two afterwards.
// Recommends are not installed, as debootstrap does not install them.
func aptInstall(ctx context.Context, cfg aptConfig) error {
	bwrap, err := lookTool("bwrap")
	if err != nil {
		return errors.New("bwrap not found (needed to run apt inside the new environment): install it with `apt-get install bubblewrap`")
	}
	root := cfg.Root
	lines := strings.Join(sourceLines(cfg.Suite, cfg.Mirror), "\n") + "\n"
	if err := os.WriteFile(filepath.Join(root, "etc/apt/sources.list"), []byte(lines), 0o644); err != nil {
		return fmt.Errorf("write apt sources: %w", err)
	}
	undo, err := lendFiles(root, map[string]lent{
		"etc/resolv.conf":      {from: "/etc/resolv.conf", perm: 0o644},
		"usr/sbin/policy-rc.d": {data: "#!/bin/sh\nexit 101\n", perm: 0o755},
	})
	defer undo()
	if err != nil {
		return fmt.Errorf("prepare apt: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(root, "var/cache/apt/archives"), 0o755); err != nil {
		return fmt.Errorf("prepare apt: %w", err)
	}

	var opts []string
	for _, o := range append(aptOptions(cfg.Suite), "Acquire::Languages=none", "Dpkg::Options::=--force-unsafe-io", "Dpkg::Use-Pty=0") {
		opts = append(opts, "-o", o)
	}
	script := `set -e
apt-get "$@" update
apt-get "$@" install -y --no-install-recommends $NOVELAPI_TARGETS
`
	args := []string{
		"--bind", root, "/", "--proc", "/proc", "--dev", "/dev",
		"--bind", cfg.DebCache, "/var/cache/apt/archives",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent", "--cap-add", "ALL",
		"--setenv", "NOVELAPI_TARGETS", strings.Join(cfg.Targets, " "),
		"--", "/bin/sh", "-c", script, "apt",
	}
	args = append(args, opts...)
	st := stage{Label: "apt " + cfg.Suite, Path: bwrap, Args: args, LogPath: cfg.LogPath,
		Marks: aptMarks, Progress: cfg.Progress, Log: cfg.Log}
	out, err := st.run(ctx)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if missing := parseAptMissing(out); len(missing) > 0 {
		return &MissingPackagesError{Suite: cfg.Suite, Packages: missing}
	}
	return fmt.Errorf("apt-get install in the new %s environment: %v; last output (whole log in %s):\n%s", cfg.Suite, err, cfg.LogPath, out)
}

// parseAptMissing returns the packages of apt-get's "E: Unable to locate
// package X" and "E: Release 'R' for 'X' was not found" lines in out.
func parseAptMissing(out string) []string {
	var pkgs []string
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if p, ok := strings.CutPrefix(line, "E: Unable to locate package "); ok {
			pkgs = append(pkgs, p)
		}
		if rest, ok := strings.CutPrefix(line, "E: Release '"); ok {
			if _, after, ok := strings.Cut(rest, "' for '"); ok {
				if p, _, ok := strings.Cut(after, "'"); ok {
					pkgs = append(pkgs, p)
				}
			}
		}
	}
	return pkgs
}

// A lent file is put in the root filesystem for the apt stage only: a
// copy of the host file from, or data.
type lent struct {
	from string
	data string
	perm os.FileMode
}

// lendFiles puts files (paths relative to root) into root where none
// exists and returns the function that removes what it put there.
func lendFiles(root string, files map[string]lent) (undo func(), err error) {
	var put []string
	undo = func() {
		for _, p := range put {
			os.Remove(p)
		}
	}
	for rel, f := range files {
		p := filepath.Join(root, rel)
		if _, err := os.Lstat(p); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return undo, err
		}
		data := []byte(f.data)
		if f.from != "" {
			if data, err = os.ReadFile(f.from); err != nil {
				return undo, err
			}
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return undo, err
		}
		if err := os.WriteFile(p, data, f.perm); err != nil {
			return undo, err
		}
		put = append(put, p)
	}
	return undo, nil
}
