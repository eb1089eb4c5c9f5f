package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/novelapi/novelapi/mcpserver"
)

// httpServer serves s's Handler on loopback for the test.
func httpServer(t testing.TB, s *mcpserver.Server) string {
	t.Helper()
	h, closeFn := s.Handler()
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		closeFn(context.Background())
		ts.Close()
	})
	return ts.URL
}

// initializeBody is an initialize request of protocol version, padded with
// pad bytes inside a string parameter.
func initializeBody(version string, pad int) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"test","version":"1"},"pad":"` + strings.Repeat("a", pad) + `"}}`)
}

// postJSON posts body to url as a JSON-RPC client does. chunked hides the
// length, so the server cannot refuse by Content-Length.
func postJSON(t testing.TB, url string, body []byte, chunked bool, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader = bytes.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // no Len: sent chunked
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// A body over Config.MaxBodyBytes is refused with 413 and a JSON-RPC error
// naming the limit, on every endpoint that takes a body, whether or not it
// states its length; one within the limit is served.
func TestHandler_BodyLimit(t *testing.T) {
	const limit = 64 << 10
	s := newServer(t, mcpserver.Config{MaxBodyBytes: limit})
	base := httpServer(t, s)
	big := initializeBody("2025-03-26", 2*limit)
	for _, path := range []string{mcpserver.PathMCP, mcpserver.PathMessage + "?sessionId=x", mcpserver.PathSSE} {
		for _, chunked := range []bool{false, true} {
			resp, body := postJSON(t, base+path, big, chunked, nil)
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("POST %s (%d bytes, chunked %v): status %d, want 413; body %.200s", path, len(big), chunked, resp.StatusCode, body)
				continue
			}
			var e struct {
				JSONRPC string `json:"jsonrpc"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.JSONRPC != "2.0" || e.Error.Code != -32600 ||
				!strings.Contains(e.Error.Message, "65536 bytes") || !strings.Contains(e.Error.Message, "--max-body") {
				t.Errorf("POST %s (chunked %v): body %s, want a JSON-RPC -32600 error naming the limit and --max-body", path, chunked, body)
			}
		}
	}
	resp, body := postJSON(t, base+mcpserver.PathMCP, initializeBody("2025-03-26", limit/2), true, nil)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"protocolVersion":"2025-03-26"`)) {
		t.Errorf("initialize within the limit: status %d, body %.300s", resp.StatusCode, body)
	}
}
