package sandbox

import (
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The run directory and the bounded OutDir.
//
// Each run has a directory under the backend's TempDir named
// runDirPrefix + ownerTag + "-" + random. OutDir is bound from a directory
// inside a tmpfs that the harness mounts there (outfs/out), sized by
// Limits.OutSize and Limits.OutFiles, so what a run writes there lives in
// memory charged to the run's own memory cgroup, never on the host's disk,
// and is gone when the harness unmounts it. The bound directory exists
// only inside that tmpfs: an engine that does not see the harness's mounts
// (a Docker daemon in another mount namespace) finds no such directory and
// refuses the bind, instead of silently binding something else.

// runDirPrefix starts every run directory's name; the owner tag after it
// lets sweepRunDirs tell dead harnesses' leftovers from live runs.
const runDirPrefix = "novelapi-run-"

// outFS is the tmpfs mount point inside a run directory, and outSub the
// directory inside it that is bound at OutDir.
const (
	outFS  = "outfs"
	outSub = "out"
)

// makeOutDir mounts a tmpfs on runDir/outfs that holds l.OutSize bytes and
// l.OutFiles files and directories below the bound directory, and returns
// that directory (runDir/outfs/out, owned by uid:gid, mode 0700). It
// needs CAP_SYS_ADMIN (root); on error nothing stays mounted.
func makeOutDir(runDir string, l Limits, uid, gid int) (string, error) {
	mnt := filepath.Join(runDir, outFS)
	if err := os.Mkdir(mnt, 0o700); err != nil {
		return "", err
	}
	// nr_inodes counts the tmpfs root and the bound directory too.
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0700", l.OutSize, l.OutFiles+2)
	if err := unix.Mount("tmpfs", mnt, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return "", fmt.Errorf("mount a tmpfs for %s (%s): %w", OutDir, opts, err)
	}
	out := filepath.Join(mnt, outSub)
	err := os.Mkdir(out, 0o700)
	if err == nil {
		err = os.Chown(out, uid, gid)
	}
	if err != nil {
		_ = unix.Unmount(mnt, unix.MNT_DETACH)
		return "", err
	}
	return out, nil
}

// probeOutDir reports whether makeOutDir works under tmp.
func probeOutDir(tmp string) error {
	dir, err := os.MkdirTemp(tmp, runDirPrefix+ownerTag()+"-")
	if err != nil {
		return err
	}
	defer removeRunDir(dir)
	_, err = makeOutDir(dir, Limits{}.WithDefaults(), os.Getuid(), os.Getgid())
	return err
}

// outFull reports whether the tmpfs holding out has no free block or no
// free inode left.
func outFull(out string) bool {
	var st unix.Statfs_t
	if unix.Statfs(out, &st) != nil || st.Type != unix.TMPFS_MAGIC {
		return false
	}
	return st.Bavail == 0 || st.Ffree == 0
}

// readOutputs offers the regular files under dir to o in path order.
// Symlinks and special files are ignored; nothing is followed.
func readOutputs(dir string, o *outputsReader) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if err != nil {
			return nil
		}
		defer f.Close()
		var size int64
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		rel, _ := filepath.Rel(dir, p)
		o.add(filepath.ToSlash(rel), size, f)
		return nil
	})
}

// removeRunDir unmounts a run directory's tmpfs and removes the directory,
// whose read-only parts (job/ is 0555) would stop a non-root RemoveAll.
func removeRunDir(dir string) error {
	_ = unix.Unmount(filepath.Join(dir, outFS), unix.MNT_DETACH)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// sweepRunDirs removes the run directories under tmp of harness processes
// that are gone (P19); those of live harnesses stay.
func sweepRunDirs(tmp string, log *slog.Logger) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, runDirPrefix) || ownerAlive(strings.TrimPrefix(name, runDirPrefix)) {
			continue
		}
		if err := removeRunDir(filepath.Join(tmp, name)); err != nil {
			log.Warn("sandbox: sweep leftover run dir", "dir", name, "err", err)
		}
	}
}
