package debenv_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/sandbox"
)

// writeTree creates a small root filesystem under dir: directories, a file,
// a symlink and a hard link, with mixed owners.
func writeTree(t *testing.T, dir string) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "usr/bin"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "out"), 0o700))
	must(os.MkdirAll(filepath.Join(dir, "job"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "usr/bin/hello"), []byte("#!/bin/sh\necho hello\n"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "b.txt"), []byte("bee\n"), 0o644))
	must(os.Link(filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")))
	must(os.Symlink("usr/bin", filepath.Join(dir, "bin")))
	if os.Geteuid() == 0 {
		must(os.Lchown(filepath.Join(dir, "out"), 65534, 65534))
	}
}

func TestWriteRootfsTar(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir)
	var a, b bytes.Buffer
	if err := debenv.WriteRootfsTar(&a, dir); err != nil {
		t.Fatal(err)
	}
	// Touching files must not change the stream: it is reproducible.
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "b.txt"), future, future)
	if err := debenv.WriteRootfsTar(&b, dir); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two tars of the same tree differ")
	}
	tr := tar.NewReader(&a)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if !h.ModTime.Equal(time.Unix(0, 0)) || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: mtime %v uname %q gname %q; want epoch and numeric owners only", h.Name, h.ModTime, h.Uname, h.Gname)
		}
		switch h.Name {
		case "c.txt":
			if h.Typeflag != tar.TypeLink || h.Linkname != "b.txt" {
				t.Errorf("c.txt: type %c link %q; want hard link to b.txt", h.Typeflag, h.Linkname)
			}
		case "bin":
			if h.Typeflag != tar.TypeSymlink || h.Linkname != "usr/bin" {
				t.Errorf("bin: type %c link %q; want symlink to usr/bin", h.Typeflag, h.Linkname)
			}
		case "out/":
			if os.Geteuid() == 0 && (h.Uid != 65534 || h.Gid != 65534) {
				t.Errorf("out/: owner %d:%d; want 65534:65534", h.Uid, h.Gid)
			}
		case "usr/bin/hello":
			body, _ := io.ReadAll(tr)
			if string(body) != "#!/bin/sh\necho hello\n" || h.Mode&0o777 != 0o755 {
				t.Errorf("usr/bin/hello: mode %o body %q", h.Mode, body)
			}
		}
	}
	want := []string{"b.txt", "bin", "c.txt", "job/", "out/", "usr/", "usr/bin/", "usr/bin/hello"}
	if !slices.Equal(names, want) {
		t.Errorf("entries = %v; want %v", names, want)
	}
}

func TestStore_ImportDocker_NoEngine(t *testing.T) {
	s := debenv.OpenStore(t.TempDir())
	dir := filepath.Join(s.Dir, "tiny")
	writeTree(t, filepath.Join(dir, "rootfs"))
	if err := debenv.WriteManifest(dir, sandbox.Manifest{Name: "tiny", Key: "0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-such.sock"))
	_, err := s.ImportDocker(t.Context(), "tiny")
	if !errors.Is(err, sandbox.ErrUnavailable) {
		t.Errorf("ImportDocker without an engine: %v; want ErrUnavailable", err)
	}
}

// dockerClient returns a client of the local engine, skipping when none
// answers (failing when NOVELAPI_REQUIRE_SANDBOX=1).
func dockerClient(t *testing.T) *client.Client {
	t.Helper()
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err == nil {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		_, err = cli.Ping(ctx)
		cancel()
	}
	if err != nil {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("Docker engine required (NOVELAPI_REQUIRE_SANDBOX=1): %v", err)
		}
		t.Skipf("SKIPPING: no Docker engine answers: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// TestStore_ImportDocker imports a small real root filesystem into the
// local engine and checks the image and the recorded id.
func TestStore_ImportDocker(t *testing.T) {
	cli := dockerClient(t)
	s := debenv.OpenStore(t.TempDir())
	name := fmt.Sprintf("test-import-%d", time.Now().UnixNano())
	dir := filepath.Join(s.Dir, name)
	writeTree(t, filepath.Join(dir, "rootfs"))
	if err := debenv.WriteManifest(dir, sandbox.Manifest{Name: name, Suite: "trixie", Key: "0123456789abcdef0123"}); err != nil {
		t.Fatal(err)
	}
	id, err := s.ImportDocker(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	ref := "novelapi/" + name + ":0123456789ab"
	t.Cleanup(func() {
		cli.ImageRemove(context.WithoutCancel(t.Context()), ref, image.RemoveOptions{Force: true, PruneChildren: true})
	})
	info, err := cli.ImageInspect(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != id {
		t.Errorf("image id %s; ImportDocker returned %s", info.ID, id)
	}
	if info.Config == nil || info.Config.WorkingDir != "/job" || !slices.Contains(info.Config.Env, "LANG=C.UTF-8") {
		t.Errorf("image config %+v; want WorkingDir /job and LANG=C.UTF-8", info.Config)
	}
	e, err := s.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	if e.Manifest.DockerImage != id {
		t.Errorf("manifest DockerImage = %q; want %s", e.Manifest.DockerImage, id)
	}
}

// TestEnvironmentDockerImage checks that the imported image of trixie-sci
// is still in the engine under the recorded id.
func TestEnvironmentDockerImage(t *testing.T) {
	e := storeEnv(t, "trixie-sci")
	cli := dockerClient(t)
	if e.Manifest.DockerImage == "" {
		if os.Getenv("NOVELAPI_REQUIRE_SANDBOX") == "1" {
			t.Fatal("trixie-sci has no Docker image (run `novelapi env docker trixie-sci`)")
		}
		t.Skip("trixie-sci has no Docker image (run `novelapi env docker trixie-sci`)")
	}
	info, err := cli.ImageInspect(t.Context(), debenv.ImageRef(e))
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != e.Manifest.DockerImage {
		t.Errorf("%s is %s; manifest records %s", debenv.ImageRef(e), info.ID, e.Manifest.DockerImage)
	}
}
