package stamp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/internal/stamp"
)

type opts struct {
	ChangeOnly bool   `json:"change_only"`
	Env        string `json:"env"`
}

func TestStale(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bundles.jsonl")
	out := filepath.Join(dir, "tasks.jsonl")
	write := func(path, s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := func(rules int, o opts) stamp.Stamp {
		t.Helper()
		s, err := stamp.New("tasks", rules, o)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = s.WithFile("bundles", in); err != nil {
			t.Fatal(err)
		}
		return s
	}
	write(in, "{\"api_name\": \"numpy.unstack\"}\n")
	base := opts{Env: "trixie-sci"}
	if got := stamp.Stale(out, want(3, base)); got != "no "+out {
		t.Errorf("missing output: %q", got)
	}
	write(out, "{}\n")
	if got := stamp.Stale(out, want(3, base)); !strings.HasPrefix(got, "no stamp beside") {
		t.Errorf("missing stamp: %q", got)
	}
	if err := stamp.Write(out, want(3, base)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		edit   func()
		rules  int
		o      opts
		reason string
	}{
		{"Fresh", func() {}, 3, base, ""},
		{"Rules", func() {}, 4, base, "tasks rules 3 → 4"},
		{"Option", func() {}, 3, opts{Env: "trixie-sci", ChangeOnly: true}, "options changed: change_only false → true"},
		{"SameBytesRewritten", func() { write(in, "{\"api_name\": \"numpy.unstack\"}\n") }, 3, base, ""},
		{"InputChanged", func() { write(in, "{\"api_name\": \"numpy.vecdot\"}\n") }, 3, base, "changed: bundles"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.edit()
			if got := stamp.Stale(out, want(tt.rules, tt.o)); got != tt.reason {
				t.Errorf("Stale = %q; want %q", got, tt.reason)
			}
		})
	}
}

func TestStale_BadStamp(t *testing.T) {
	out := filepath.Join(t.TempDir(), "index")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stamp.Path(out), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := stamp.New("index", 2, nil)
	if got := stamp.Stale(out, s); !strings.Contains(got, stamp.Path(out)) {
		t.Errorf("unreadable stamp: %q does not name the file", got)
	}
	if err := stamp.Remove(out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stamp.Path(out)); !os.IsNotExist(err) {
		t.Errorf("stamp left after Remove: %v", err)
	}
}
