package sandbox

import (
	"strings"
	"time"
)

// An Environment is a built Debian root filesystem with Python and a set of
// libraries, stored under the store's directory as NAME/rootfs with its
// manifest in NAME/manifest.json.
type Environment struct {
	Name     string   `json:"name"`
	Root     string   `json:"root"` // absolute path of the root filesystem
	Manifest Manifest `json:"manifest"`
}

// A Manifest describes what an environment holds, read from inside it after
// the build (never from the request alone).
type Manifest struct {
	Name      string            `json:"name"`
	Suite     string            `json:"suite"`     // bookworm, trixie, sid, experimental
	Libraries []string          `json:"libraries"` // library names requested, e.g. numpy, boltons
	Packages  map[string]string `json:"packages"`  // every installed Debian package → version
	Requested []string          `json:"requested"` // Debian packages asked for (python3 + libraries + extras)
	Python    string            `json:"python"`    // e.g. "3.13.5"
	// Versions maps each library that loads to its distribution version as
	// its metadata inside the environment reports it.
	Versions map[string]string `json:"versions"`
	// Installed describes each requested library as read inside the
	// environment from its packages' own files, in request order. Older
	// manifests lack it.
	Installed []InstalledLibrary `json:"installed,omitempty"`
	// Sources are the apt source lines the packages came from, e.g.
	// "deb http://deb.debian.org/debian sid main"; an experimental
	// environment has sid's line and experimental's.
	Sources []string `json:"sources,omitempty"`
	// AptOptions are the options apt ran with inside the build, e.g.
	// "Acquire::Check-Valid-Until=false" for sid and experimental, whose
	// Release files can be past their Valid-Until date on the build
	// machine's clock.
	AptOptions []string  `json:"apt_options,omitempty"`
	SizeBytes  int64     `json:"size_bytes"`
	BuiltAt    time.Time `json:"built_at"`
	// Key is a hash of suite + sorted requested packages: same key, same
	// build. A layered environment's is a hash of its base's key and its
	// layer's.
	Key string `json:"key"`
	// Base names the environment a layered one was made from (its root
	// filesystem is the base's plus the layer's files, docs/private.md §2);
	// "" for an environment built from Debian packages alone.
	Base string `json:"base,omitempty"`
	// DockerImage is the image id after `novelapi env docker`, "" before.
	DockerImage string `json:"docker_image,omitempty"`
}

// An InstalledLibrary is one requested library as the environment holds it.
type InstalledLibrary struct {
	Name string `json:"name"` // as requested: a catalogue name or a Debian package's
	// Packages are the Debian binary packages installed for it, e.g.
	// ["python3-sklearn"].
	Packages []string `json:"packages"`
	// Suite is the suite its packages came from when it differs from the
	// environment's (experimental over sid); "" means the environment's.
	Suite string `json:"suite,omitempty"`
	// Dist is the distribution name from its metadata (e.g. "scikit-learn");
	// "" when Debian ships none.
	Dist    string   `json:"dist"`
	Imports []string `json:"imports"` // top-level import names, e.g. ["sklearn"]
	Import  string   `json:"import"`  // the module imported to check it loads
	Version string   `json:"version"` // distribution version, e.g. "1.9.0"
	// Source is where a private library was added from: the path, with
	// "@REV" for a git revision (docs/private.md); "" for a Debian one.
	Source string `json:"source,omitempty"`
	// Error says why the library is unusable (its packages install no
	// Python module, or Import fails); "" when it loads.
	Error string `json:"error,omitempty"`
}

// Library returns the installed library called name (without regard to
// case), or false when the manifest does not record it.
func (m *Manifest) Library(name string) (InstalledLibrary, bool) {
	for _, l := range m.Installed {
		if strings.EqualFold(l.Name, name) {
			return l, true
		}
	}
	return InstalledLibrary{}, false
}
