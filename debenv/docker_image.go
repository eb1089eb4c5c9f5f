package debenv

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"
	"github.com/novelapi/novelapi/sandbox"
	"github.com/schollz/progressbar/v3"
)

// imageAPI is the part of the Docker Engine client that ImportDocker uses.
type imageAPI interface {
	Ping(ctx context.Context) (types.Ping, error)
	ImageImport(ctx context.Context, source image.ImportSource, ref string, options image.ImportOptions) (io.ReadCloser, error)
	ImageInspect(ctx context.Context, imageID string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	Close() error
}

// ImageChanges are the Dockerfile instructions applied to every imported
// environment image (docs/sandbox.md §4.5 step 3).
var ImageChanges = []string{"ENV LANG=C.UTF-8", "WORKDIR /job"}

// An ImportConfig tunes [Store.ImportDockerWith]. The zero value works.
type ImportConfig struct {
	// Progress receives a byte progress bar of the tar stream; nil means none.
	Progress io.Writer
	// Log receives what happens; nil means slog.Default().
	Log *slog.Logger
}

// ImageRef returns the Docker image reference of environment e:
// novelapi/NAME:KEY12, where KEY12 is the first 12 hex digits of its key.
func ImageRef(e *sandbox.Environment) string {
	k := e.Manifest.Key
	if len(k) > 12 {
		k = k[:12]
	}
	if k == "" {
		k = "latest"
	}
	return "novelapi/" + e.Name + ":" + k
}

// ImportDocker is ImportDockerWith with the zero ImportConfig.
func (s *Store) ImportDocker(ctx context.Context, name string) (string, error) {
	return s.ImportDockerWith(ctx, name, ImportConfig{})
}

// ImportDockerWith imports the root filesystem of environment name into the
// Docker engine found from the environment (DOCKER_HOST, …) with `docker
// import` semantics and no registry (docs/sandbox.md §4.5): a reproducible tar
// (sorted names, numeric owners, mtime 0) is streamed to the engine,
// [ImageChanges] are applied, the image is tagged [ImageRef], and its id
// ("sha256:…") is recorded in the manifest's DockerImage and returned.
// An unreachable engine gives an error wrapping ErrUnavailable.
func (s *Store) ImportDockerWith(ctx context.Context, name string, cfg ImportConfig) (string, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return "", fmt.Errorf("%w: docker client: %v", sandbox.ErrUnavailable, err)
	}
	return s.importDocker(ctx, cli, name, cfg)
}

func (s *Store) importDocker(ctx context.Context, cli imageAPI, name string, cfg ImportConfig) (string, error) {
	defer cli.Close()
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	e, err := s.Get(name)
	if err != nil {
		return "", err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = cli.Ping(pctx)
	cancel()
	if err != nil {
		return "", fmt.Errorf("%w: no Docker engine answers (%v); start dockerd or set DOCKER_HOST", sandbox.ErrUnavailable, err)
	}
	ref := ImageRef(e)
	log.Info("importing environment into Docker", "env", name, "image", ref)
	start := time.Now()

	pr, pw := io.Pipe()
	var bar *progressbar.ProgressBar
	var w io.Writer = pw
	if cfg.Progress != nil {
		bar = progressbar.NewOptions64(e.Manifest.SizeBytes, progressbar.OptionSetWriter(cfg.Progress),
			progressbar.OptionSetDescription("docker import "+name), progressbar.OptionShowBytes(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		w = io.MultiWriter(pw, bar)
	}
	go func() {
		pw.CloseWithError(WriteRootfsTar(w, e.Root))
	}()
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: pr, SourceName: "-"}, ref,
		image.ImportOptions{Changes: ImageChanges, Message: "novelapi env " + name + " key " + e.Manifest.Key})
	if err != nil {
		pr.CloseWithError(err)
		return "", fmt.Errorf("docker import %s: %w", name, err)
	}
	err = jsonmessage.DisplayJSONMessagesStream(rc, io.Discard, 0, false, nil)
	rc.Close()
	pr.CloseWithError(errors.New("import finished"))
	if err != nil {
		return "", fmt.Errorf("docker import %s: %w", name, err)
	}
	if bar != nil {
		bar.Finish()
	}
	info, err := cli.ImageInspect(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("docker import %s: inspect %s: %w", name, ref, err)
	}

	unlock, err := s.lock(ctx, name, log)
	if err != nil {
		return "", err
	}
	defer unlock()
	cur, err := s.Get(name)
	if err != nil {
		return "", err
	}
	if cur.Manifest.Key != e.Manifest.Key {
		return "", fmt.Errorf("docker import %s: the environment was rebuilt during the import; run it again", name)
	}
	cur.Manifest.DockerImage = info.ID
	if err := WriteManifest(filepath.Join(s.Dir, name), cur.Manifest); err != nil {
		return "", fmt.Errorf("record Docker image of %s: %w", name, err)
	}
	log.Info("imported", "env", name, "image", ref, "id", info.ID, "took", time.Since(start).Round(time.Second))
	return info.ID, nil
}

// WriteRootfsTar writes the tree at root to w as a reproducible tar stream,
// like `tar --sort=name --mtime=@0 --numeric-owner -C root -c .`
// (docs/sandbox.md §4.5 step 2): entries in lexical order, names relative to
// root, numeric uid/gid kept without user names, all times zero, hard links
// as links to their first name. Sockets are skipped; extended attributes
// are not kept.
func WriteRootfsTar(w io.Writer, root string) error {
	tw := tar.NewWriter(w)
	links := map[[2]uint64]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSocket != 0 {
			return nil
		}
		var target string
		if fi.Mode()&fs.ModeSymlink != 0 {
			if target, err = os.Readlink(path); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(fi, target)
		if err != nil {
			return fmt.Errorf("tar %s: %w", rel, err)
		}
		hdr.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname = "", ""
		hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = time.Unix(0, 0), time.Time{}, time.Time{}
		hdr.Format = tar.FormatPAX
		hdr.PAXRecords = nil
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			hdr.Uid, hdr.Gid = int(st.Uid), int(st.Gid)
			if fi.Mode().IsRegular() && st.Nlink > 1 {
				id := [2]uint64{uint64(st.Dev), st.Ino}
				if first, ok := links[id]; ok {
					hdr.Typeflag = tar.TypeLink
					hdr.Linkname = first
					hdr.Size = 0
					return tw.WriteHeader(hdr)
				}
				links[id] = hdr.Name
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("tar %s: %w", rel, err)
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		_, err = io.Copy(tw, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("tar %s: %w", rel, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
