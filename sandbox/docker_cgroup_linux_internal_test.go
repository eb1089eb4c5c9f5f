//go:build linux

package sandbox

import "testing"

// openDockerCgroups refuses engines whose cgroups are not this host's or
// not laid out by the cgroupfs driver, before touching anything.
func TestOpenDockerCgroups_Refuses(t *testing.T) {
	tests := []struct{ name, host, driver, version string }{
		{"RemoteEngine", "tcp://build-host.example:2376", "cgroupfs", "1"},
		{"SSHEngine", "ssh://me@build-host.example", "cgroupfs", "1"},
		{"SystemdDriver", "unix:///var/run/docker.sock", "systemd", "2"},
		{"VersionMismatch", "unix:///var/run/docker.sock", "cgroupfs", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir() // no cgroup.controllers: a v1 layout, nothing mounted
			if cg, err := openDockerCgroups(root, tt.host, tt.driver, tt.version); err == nil {
				t.Errorf("openDockerCgroups(%q, %q, %q) = %+v; want an error", tt.host, tt.driver, tt.version, cg)
			}
		})
	}
}

func TestIsDockerRunName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"123-456-d7", true},
		{"123-456-7", false}, // a bwrap run
		{"123-456-d", false},
		{"123-456-dx", false},
		{"docker", false},
	}
	for _, tt := range tests {
		if got := isDockerRunName(tt.name); got != tt.want {
			t.Errorf("isDockerRunName(%q) = %v; want %v", tt.name, got, tt.want)
		}
	}
}
