package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/novelapi/novelapi/mcpserver"
)

// A client that writes its requests and closes stdin at once still gets
// every answer, even when the index is slow to open and tool calls queue
// behind it (T22; mcp-go's Listen alone cancels them at EOF).
func TestServeStdio_AnswersEveryRequestReadBeforeEOF(t *testing.T) {
	open := openFixture(t)
	s, err := mcpserver.New(mcpserver.Config{Logger: quietLog(), ReadyWait: time.Minute,
		Open: func(ctx context.Context) (mcpserver.Store, error) {
			time.Sleep(300 * time.Millisecond) // a large index loading
			return open(ctx)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	const calls = 12 // more than mcp-go's 5 tool-call workers
	for i := range calls {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_api","arguments":{"api_name":"numpy.unstack"}}}`, 10+i))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":"last","method":"ping"}`) // no newline at the end
	for _, in := range []struct {
		name string
		r    func(string) io.Reader
	}{
		{"whole", func(s string) io.Reader { return strings.NewReader(s) }},
		{"byte by byte", func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
	} {
		t.Run(in.name, func(t *testing.T) { serveAndCheck(t, s, in.r(strings.Join(lines, "\n")), calls) })
	}
}

// serveAndCheck serves in over stdio and checks that the initialize, the
// tool calls (ids 10…) and the final ping were all answered without error.
func serveAndCheck(t *testing.T, s *mcpserver.Server, r io.Reader, calls int) {
	var out bytes.Buffer
	t0 := time.Now()
	if err := s.ServeStdio(t.Context(), r, &out); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > mcpserver.DrainTimeout/2 {
		t.Errorf("ServeStdio returned after %v: it waited for an answer that never came", d)
	}
	got := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		got[string(msg.ID)] = true
		if strings.Contains(string(msg.Result), `"isError":true`) {
			t.Errorf("request %s answered with an error: %s", msg.ID, msg.Result)
		}
	}
	want := []string{"1", `"last"`}
	for i := range calls {
		want = append(want, fmt.Sprint(10+i))
	}
	for _, id := range want {
		if !got[id] {
			t.Errorf("no answer to request %s; stdout:\n%s", id, out.String())
		}
	}
}
