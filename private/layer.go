package private

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

//go:embed py/layerprobe.py
var layerProbeScript string

// A LayerConfig describes one layered environment for [Layer]. Layer never
// modifies it.
type LayerConfig struct {
	// Name of the new environment; required.
	Name string
	// Base is the Debian environment the layer goes over; required.
	Base *sandbox.Environment
	// Sources are installed into the layer: the library first, then the
	// private libraries it depends on.
	Sources []*Source
	// Runner runs the check that each library imports from the layer; nil
	// means the bwrap backend.
	Runner sandbox.Runner
	// Log receives progress; nil means slog.Default().
	Log *slog.Logger
}

// SiteDir is the directory of the root filesystem a layer installs into
// for an environment whose Python is python ("3.13.5"):
// usr/local/lib/python3.13/dist-packages, which Debian's python3 puts on
// sys.path before its own packages' directory (Debian Python Policy §1.5),
// so a private library wins over a Debian package of the same name.
func SiteDir(python string) string {
	major, minor := pyMajorMinor(python)
	return fmt.Sprintf("usr/local/lib/python%d.%d/dist-packages", major, minor)
}

// Machine is the machine name Python reports on this host's architecture
// (platform.machine(): "x86_64", "aarch64").
func Machine() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	}
	return runtime.GOARCH
}

// Digest returns a hash of what s installs: its name, version and every
// file's path and content. Two sources with the same digest make the same
// layer.
func (s *Source) Digest() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", s.Name, s.Version)
	for _, rel := range slices.Sorted(maps.Keys(s.Files)) {
		f, err := os.Open(s.Files[rel])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", rel)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Layer makes the environment cfg.Name: cfg.Base with every source's files
// in [SiteDir] and, for sources that carry no *.dist-info (trees, sdists),
// one written from their declared metadata, so that importlib.metadata
// reports their version. It then imports each library inside the new
// environment; a library that fails to import, or imports from somewhere
// other than the layer, fails the whole layer and nothing is left in the
// store (docs/private.md §2). A wheel with compiled parts must match the
// base's Python and machine. The manifest lists each private library in
// Installed with its Source.
func Layer(ctx context.Context, store *debenv.Store, cfg LayerConfig) (*sandbox.Environment, error) {
	if cfg.Base == nil || len(cfg.Sources) == 0 {
		return nil, fmt.Errorf("layer %s: needs a base environment and a library", cfg.Name)
	}
	python := cfg.Base.Manifest.Python
	if python == "" {
		return nil, fmt.Errorf("layer %s: base environment %s records no Python version", cfg.Name, cfg.Base.Name)
	}
	key := sha256.New()
	for _, s := range cfg.Sources {
		if s.Wheel != nil {
			if err := s.Wheel.Compatible(python, Machine()); err != nil {
				return nil, fmt.Errorf("add %s: %w (base environment %s)", s.Label(), err, cfg.Base.Name)
			}
		}
		d, err := s.Digest()
		if err != nil {
			return nil, fmt.Errorf("add %s: %w", s.Label(), err)
		}
		fmt.Fprintf(key, "%s\x00%s\x00", d, s.Label())
	}
	runner := cfg.Runner
	if runner == nil {
		var err error
		if runner, err = sandbox.NewBwrap(sandbox.BwrapConfig{Log: cfg.Log}); err != nil {
			return nil, fmt.Errorf("layer %s: %w", cfg.Name, err)
		}
	}
	site := SiteDir(python)
	return store.Derive(ctx, debenv.DeriveConfig{
		Name: cfg.Name, Base: cfg.Base, Key: hex.EncodeToString(key.Sum(nil)), Log: cfg.Log,
		Install: func(root string) error {
			for _, s := range cfg.Sources {
				if err := install(s, filepath.Join(root, site)); err != nil {
					return fmt.Errorf("install %s into %s: %w", s.Label(), cfg.Name, err)
				}
			}
			return nil
		},
		Describe: func(root string, m *sandbox.Manifest) error {
			return describe(ctx, runner, root, site, cfg, m)
		},
	})
}

// install copies s's files into the site directory dir and writes its
// dist-info when it has none.
func install(s *Source, dir string) error {
	hasInfo := false
	for _, rel := range slices.Sorted(maps.Keys(s.Files)) {
		if top := strings.SplitN(rel, "/", 2)[0]; strings.HasSuffix(top, ".dist-info") || strings.HasSuffix(top, ".egg-info") {
			hasInfo = true
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if _, err := os.Lstat(target); err == nil {
			return fmt.Errorf("%s is installed twice (another private library has it)", rel)
		}
		if err := copyRegular(s.Files[rel], target); err != nil {
			return err
		}
	}
	if hasInfo {
		return nil
	}
	info := filepath.Join(dir, strings.ReplaceAll(NormalizeName(s.Name), "-", "_")+"-"+s.Version+".dist-info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", s.Name, s.Version)
	for _, r := range s.Requires {
		fmt.Fprintf(&md, "Requires-Dist: %s\n", r.Line)
	}
	direct, _ := json.Marshal(map[string]any{"url": "file://" + s.Path, "dir_info": map[string]any{}})
	files := map[string]string{
		"METADATA":        md.String(),
		"INSTALLER":       "novelapi\n",
		"top_level.txt":   strings.Join(s.Imports, "\n") + "\n",
		"direct_url.json": string(direct) + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(info, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyRegular copies a regular file, readable by all.
func copyRegular(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// probeOut is what py/layerprobe.py prints.
type probeOut struct {
	Python    string `json:"python"`
	Machine   string `json:"machine"`
	Libraries map[string]struct {
		Version string `json:"version"`
		File    string `json:"file"`
		Error   string `json:"error"`
	} `json:"libraries"`
}

// describe imports every library of the layer inside the new root
// filesystem and records them in m.
func describe(ctx context.Context, runner sandbox.Runner, root, site string, cfg LayerConfig, m *sandbox.Manifest) error {
	type lib struct {
		Name   string `json:"name"`
		Dist   string `json:"dist"`
		Import string `json:"import"`
	}
	var arg []lib
	for _, s := range cfg.Sources {
		arg = append(arg, lib{Name: LibraryName(s.Name), Dist: s.Name, Import: s.Import})
	}
	argJSON, _ := json.Marshal(arg)
	res, err := runner.Run(ctx, sandbox.Spec{
		Environment: &sandbox.Environment{Name: cfg.Name, Root: root, Manifest: *m},
		Files:       []sandbox.File{{Path: "layerprobe.py", Data: []byte(layerProbeScript)}},
		Argv:        []string{"python3", "-I", "-B", "/job/layerprobe.py", string(argJSON)},
		Limits:      sandbox.Limits{Wall: 5 * time.Minute, Memory: 4 << 30, PIDs: 512},
	})
	if err != nil {
		return fmt.Errorf("check the layer %s: %w", cfg.Name, err)
	}
	var out probeOut
	if res.ExitCode != 0 || json.Unmarshal(res.Stdout, &out) != nil {
		return fmt.Errorf("check the layer %s: python3 exited %d (signal %q, limit %q): %s", cfg.Name, res.ExitCode, res.Signal, res.LimitHit,
			lastBytes(strings.TrimSpace(string(res.Stderr)), 800))
	}
	m.Versions = maps.Clone(m.Versions)
	if m.Versions == nil {
		m.Versions = map[string]string{}
	}
	m.Installed = slices.Clone(m.Installed)
	m.Libraries = slices.Clone(m.Libraries)
	for _, s := range cfg.Sources {
		name := LibraryName(s.Name)
		r := out.Libraries[name]
		if r.Error != "" {
			return fmt.Errorf("add %s: %s %s does not load over %s: %s", s.Label(), s.Name, s.Version, cfg.Base.Name, r.Error)
		}
		if !strings.HasPrefix(r.File, "/"+site+"/") {
			return fmt.Errorf("add %s: import %s loads %s, not the layer's copy under /%s", s.Label(), s.Import, r.File, site)
		}
		m.Installed = slices.DeleteFunc(m.Installed, func(l sandbox.InstalledLibrary) bool { return strings.EqualFold(l.Name, name) })
		m.Installed = append(m.Installed, sandbox.InstalledLibrary{Name: name, Dist: s.Name, Imports: s.Imports,
			Import: s.Import, Version: r.Version, Source: s.Label()})
		if !slices.Contains(m.Libraries, name) {
			m.Libraries = append(m.Libraries, name)
		}
		m.Versions[name] = r.Version
	}
	return nil
}

// LibraryName is the library name a private distribution is known by in
// bundles, the index and the tools: its PEP 503 normal form ("Boltons" →
// "boltons").
func LibraryName(dist string) string { return NormalizeName(dist) }

func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
