package sandbox

import "time"

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
	Suite     string            `json:"suite"`     // bookworm, trixie, sid
	Libraries []string          `json:"libraries"` // catalogue names requested, e.g. numpy
	Packages  map[string]string `json:"packages"`  // every installed Debian package → version
	Requested []string          `json:"requested"` // Debian packages asked for (python3 + libraries + extras)
	Python    string            `json:"python"`    // e.g. "3.13.5"
	// Versions maps each library to its distribution version as
	// importlib.metadata reports it inside the environment.
	Versions  map[string]string `json:"versions"`
	SizeBytes int64             `json:"size_bytes"`
	BuiltAt   time.Time         `json:"built_at"`
	// Key is a hash of suite + sorted requested packages: same key, same build.
	Key string `json:"key"`
	// DockerImage is the image id after `novelapi env docker`, "" before.
	DockerImage string `json:"docker_image,omitempty"`
}
