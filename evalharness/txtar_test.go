package evalharness

import (
	"os"
	"strings"
	"testing"
)

// archive is a parsed txtar file (golang.org/x/tools/txtar format): a
// comment, then files introduced by "-- name --" lines.
type archive struct {
	Comment string
	Files   map[string]string
	Order   []string
}

func parseTxtar(data string) archive {
	a := archive{Files: map[string]string{}}
	cur := ""
	var b strings.Builder
	flush := func() {
		if cur == "" {
			a.Comment = b.String()
		} else {
			a.Files[cur] = b.String()
			a.Order = append(a.Order, cur)
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(data, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			cur = strings.TrimSpace(t[3 : len(t)-3])
			continue
		}
		b.WriteString(line)
	}
	flush()
	return a
}

func formatTxtar(a archive) string {
	var b strings.Builder
	b.WriteString(a.Comment)
	for _, name := range a.Order {
		b.WriteString("-- " + name + " --\n")
		v := a.Files[name]
		b.WriteString(v)
		if v != "" && !strings.HasSuffix(v, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func readTxtar(t testing.TB, path string) archive {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseTxtar(string(data))
}
