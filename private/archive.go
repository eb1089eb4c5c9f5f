package private

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// MaxUnpacked bounds the bytes an archive may unpack to (1 GiB): a wheel
// or sdist larger than that is refused rather than allowed to fill the disk.
const MaxUnpacked = 1 << 30

// safeJoin returns dst/name for an archive member, or an error when the
// name is absolute or climbs out of dst.
func safeJoin(dst, name string) (string, error) {
	clean := path.Clean("/" + strings.ReplaceAll(name, `\`, "/"))
	if clean == "/" || strings.HasPrefix(name, "/") || strings.Contains("/"+name+"/", "/../") {
		return "", fmt.Errorf("archive member %q: absolute or climbs out of the archive", name)
	}
	return filepath.Join(dst, filepath.FromSlash(clean[1:])), nil
}

// unzip extracts the zip archive src (a wheel, a zip sdist) into dst.
// Only directories and regular files are extracted.
func unzip(src, dst string) error {
	zr, err := zip.OpenReader(src)
	if err != nil {
		return err
	}
	defer zr.Close()
	var total int64
	for _, f := range zr.File {
		target, err := safeJoin(dst, f.Name)
		if err != nil {
			return err
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		}
		if !f.Mode().IsRegular() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		n, err := writeMember(target, rc, MaxUnpacked-total)
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		total += n
	}
	return nil
}

// untarGz extracts the gzip-compressed tar archive src into dst.
func untarGz(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	return untarFrom(zr, dst)
}

// untar extracts the tar archive src into dst.
func untar(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return untarFrom(f, dst)
}

func untarFrom(r io.Reader, dst string) error {
	tr := tar.NewReader(r)
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag == tar.TypeXGlobalHeader || h.Name == "pax_global_header" {
			continue
		}
		target, err := safeJoin(dst, h.Name)
		if err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			n, err := writeMember(target, tr, MaxUnpacked-total)
			if err != nil {
				return fmt.Errorf("%s: %w", h.Name, err)
			}
			total += n
		}
	}
}

// writeMember writes r to target (creating its directory), refusing more
// than room bytes.
func writeMember(target string, r io.Reader, room int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(r, room+1))
	if cerr := out.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if err == nil && n > room {
		err = fmt.Errorf("the archive unpacks to more than %d bytes", int64(MaxUnpacked))
	}
	return n, err
}
