package project

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// readInstalled reads the *.dist-info of every virtual environment directly
// under the project (a directory holding pyvenv.cfg: .venv, venv, env, ...):
// its METADATA's Name and Version, which is what the project's code runs
// against. The first environment's pyvenv.cfg gives [Project.Python].
func (p *Project) readInstalled() error {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		cfg, ok, err := p.readFile(filepath.Join(e.Name(), "pyvenv.cfg"))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if p.Python == "" {
			p.Python = venvPython(cfg)
		}
		var metas []string
		for _, lib := range []string{"lib", "lib64"} {
			m, _ := filepath.Glob(filepath.Join(p.Dir, e.Name(), lib, "python3*", "site-packages", "*.dist-info", "METADATA"))
			metas = append(metas, m...)
		}
		slices.Sort(metas)
		metas = slices.Compact(metas) // lib64 is often a link to lib
		for _, m := range metas {
			rel, err := filepath.Rel(p.Dir, m)
			if err != nil {
				return err
			}
			if err := p.readMetadata(rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// venvPython returns the Python version pyvenv.cfg records: "version"
// (venv, virtualenv) or "version_info" (uv: "3.13.5" or "3.13.5.final.0").
func venvPython(cfg []byte) string {
	var v string
	for _, line := range splitLines(cfg) {
		k, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "version", "version_info":
			v = strings.TrimSpace(val)
		}
	}
	if parts := strings.Split(v, "."); len(parts) > 3 {
		v = strings.Join(parts[:3], ".")
	}
	return v
}

// readMetadata reads the Name and Version of one installed distribution;
// the declaration's line is Version's.
func (p *Project) readMetadata(rel string) error {
	data, err := os.ReadFile(filepath.Join(p.Dir, rel))
	if err != nil {
		return err
	}
	var name, version string
	vline := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" {
			break // the headers end at the first empty line
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || line[0] == ' ' || line[0] == '\t' { // a continuation line
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "name":
			name = strings.TrimSpace(v)
		case "version":
			version, vline = strings.TrimSpace(v), n
		}
	}
	if name == "" || version == "" {
		p.warn(rel, 0, distInfoName(rel), "has no Name or Version header")
		return nil
	}
	spec, err := exact(version)
	if err != nil {
		p.warn(rel, vline, name, "Version %q: %v", version, err)
		return nil
	}
	p.add(Requirement{Name: name, Specifiers: specs(spec), Kind: KindInstalled, File: rel, Line: vline, Text: name + " " + version})
	return nil
}

// distInfoName returns the distribution name of a METADATA path
// (".../numpy-2.2.4.dist-info/METADATA" → "numpy").
func distInfoName(rel string) string {
	base := strings.TrimSuffix(filepath.Base(filepath.Dir(rel)), ".dist-info")
	name, _, _ := strings.Cut(base, "-")
	return name
}
