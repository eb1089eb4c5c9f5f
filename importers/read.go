package importers

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// readRecords reads the JSONL file at path as records of type T; a name
// ending in .gz is read through gzip (APICoder ships its pools gzipped). A
// file with no records is an error naming it: an import of nothing is
// almost always a wrong path or an empty download, and would otherwise
// write an empty pool and exit 0. Parse errors name path and line.
func readRecords[T any](path string) ([]T, error) {
	src := path
	if strings.HasSuffix(path, ".gz") {
		tmp, err := gunzipTemp(path)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(filepath.Dir(tmp))
		src = tmp
	}
	recs, _, err := jsonl.Read[T](src, jsonl.ReadOptions{})
	if pe, ok := errors.AsType[*jsonl.ParseError](err); ok {
		pe.Path = path
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no records (empty file)", path)
	}
	return recs, nil
}

// gunzipTemp decompresses path into a file of a new temporary directory
// and returns the file's path; the caller removes the directory.
func gunzipTemp(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	dir, err := os.MkdirTemp("", "novelapi-import-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "records.jsonl")
	w, err := os.Create(out)
	if err == nil {
		_, err = io.Copy(w, zr)
		if cerr := w.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
