package importers_test

import (
	"os"
	"testing"

	"github.com/novelapi/novelapi/importers"
)

func TestImportCodeUpdateArena_Full(t *testing.T) {
	path := os.Getenv("NOVELAPI_ARENA")
	if path == "" {
		t.Skip("NOVELAPI_ARENA not set")
	}
	out := os.Getenv("NOVELAPI_ARENA_OUT")
	st, err := importers.ImportCodeUpdateArena(path, out, importers.ArenaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", st)
}
