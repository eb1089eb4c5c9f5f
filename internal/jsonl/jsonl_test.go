package jsonl_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/internal/jsonl"
)

func TestDecode_YieldsParseErrors(t *testing.T) {
	in := "{\"a\":1}\nnot json\n{\"a\":3}\n"
	type rec struct{ A int }
	var got []int
	var bad []int
	for r, err := range jsonl.Decode[rec](strings.NewReader(in), "") {
		if pe, ok := errors.AsType[*jsonl.ParseError](err); ok {
			bad = append(bad, pe.Line)
			if !strings.HasPrefix(pe.Error(), "<stream>:2:") {
				t.Errorf("message %q", pe)
			}
			continue
		}
		got = append(got, r.A)
	}
	if !reflect.DeepEqual(got, []int{1, 3}) || !reflect.DeepEqual(bad, []int{2}) {
		t.Errorf("got %v bad %v", got, bad)
	}
}

func TestWrite_Atomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Code string `json:"code"`
	}
	if err := jsonl.Write(path, []rec{{"a < b && c > d"}, {"é"}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "{\"code\":\"a < b && c > d\"}\n{\"code\":\"é\"}\n"; string(data) != want {
		t.Errorf("file = %q, want %q", data, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only out.jsonl (temp file left?)", len(entries))
	}
	// A missing directory is made (a fresh data directory has none);
	// a parent that is a file is an error naming the path.
	if err := jsonl.Write(filepath.Join(dir, "missing", "x.jsonl"), []rec{}); err != nil {
		t.Errorf("writing into a missing directory: %v", err)
	}
	bad := filepath.Join(path, "x.jsonl")
	if err := jsonl.Write(bad, []rec{}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("writing under a file: %v, want an error naming %s", err, bad)
	}
}

func TestAppender(t *testing.T) {
	type rec struct {
		ID int `json:"id"`
	}
	path := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := jsonl.OpenAppend[rec](path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		if err := w.Write(rec{i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec{9}); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}

	tests := []struct {
		name        string
		tail        string
		wantIDs     []int
		wantDropped int64
	}{
		{"PartialRecordCut", `{"id": 3, "na`, []int{1, 2, 4}, 13},
		{"CompleteRecordKept", `{"id": 3}`, []int{1, 2, 3, 4}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "r.jsonl")
			base, _ := os.ReadFile(path)
			if err := os.WriteFile(p, append(base, tt.tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := jsonl.OpenAppend[rec](p)
			if err != nil {
				t.Fatal(err)
			}
			if w.Dropped() != tt.wantDropped {
				t.Errorf("Dropped() = %d, want %d", w.Dropped(), tt.wantDropped)
			}
			if err := w.Write(rec{4}); err != nil {
				t.Fatal(err)
			}
			w.Close()
			got, _, err := jsonl.Read[rec](p, jsonl.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var ids []int
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Errorf("ids = %v, want %v", ids, tt.wantIDs)
			}
		})
	}
}
