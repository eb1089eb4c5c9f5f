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

// session initializes an MCP session of protocol version over streamable
// HTTP at base and returns its ID.
func session(t testing.TB, base, version string) string {
	t.Helper()
	resp, body := postJSON(t, base+mcpserver.PathMCP, initializeBody(version, 0), false, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" || !bytes.Contains(body, []byte(`"protocolVersion":"`+version+`"`)) {
		t.Fatalf("initialize %s: status %d, session %q, body %.300s", version, resp.StatusCode, id, body)
	}
	resp, body = postJSON(t, base+mcpserver.PathMCP, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), false,
		map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": version})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, body %.300s", resp.StatusCode, body)
	}
	return id
}

// rpcResponse is one JSON-RPC response as a client reads it.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// A JSON-RPC batch over streamable HTTP is answered with the array of its
// responses under protocol 2025-03-26, which has batches, and refused with
// one JSON-RPC error under 2025-06-18, which removed them, whether the
// client sends the version header or only negotiated the version.
func TestHandler_Batch(t *testing.T) {
	s := newServer(t, mcpserver.Config{})
	base := httpServer(t, s)
	batch := []byte(`[
		{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"search_apis","arguments":{"query":"numpy.unstack","k":1}}},
		{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}},
		{"jsonrpc":"2.0","id":7,"method":"tools/list"},
		{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}
	]`)

	t.Run("Allowed2025_03_26", func(t *testing.T) {
		id := session(t, base, "2025-03-26")
		resp, body := postJSON(t, base+mcpserver.PathMCP, batch, false, map[string]string{"Mcp-Session-Id": id})
		var got []rpcResponse
		if err := json.Unmarshal(body, &got); resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("batch: status %d, body %.400s (%v); want 200 and an array of responses", resp.StatusCode, body, err)
		}
		if len(got) != 3 {
			t.Fatalf("batch of 3 requests and a notification: %d responses: %s", len(got), body)
		}
		if got[0].ID != "a" || got[0].Error != nil || !strings.Contains(string(got[0].Result), `### 1. numpy.unstack`) {
			t.Errorf("response 1 = %.300s, want search_apis' answer for id \"a\"", body)
		}
		if got[1].ID != float64(7) || got[1].Error != nil || !strings.Contains(string(got[1].Result), `"search_apis"`) {
			t.Errorf("response 2 = id %v, error %v; want tools/list for id 7", got[1].ID, got[1].Error)
		}
		if got[2].ID != float64(8) || got[2].Error == nil || got[2].Error.Code != -32600 || !strings.Contains(got[2].Error.Message, "initialize must not be part of a JSON-RPC batch") {
			t.Errorf("response 3 = %+v, want -32600 for initialize in a batch", got[2])
		}
		resp, body = postJSON(t, base+mcpserver.PathMCP, []byte(`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}}]`), false, map[string]string{"Mcp-Session-Id": id})
		if resp.StatusCode != http.StatusAccepted || len(body) != 0 {
			t.Errorf("batch of one notification: status %d, body %q; want 202 and no body", resp.StatusCode, body)
		}
	})

	for _, header := range []bool{true, false} {
		name := map[bool]string{true: "Refused2025_06_18Header", false: "Refused2025_06_18Negotiated"}[header]
		t.Run(name, func(t *testing.T) {
			id := session(t, base, "2025-06-18")
			h := map[string]string{"Mcp-Session-Id": id}
			if header {
				h["Mcp-Protocol-Version"] = "2025-06-18"
			}
			resp, body := postJSON(t, base+mcpserver.PathMCP, batch, false, h)
			var got rpcResponse
			if err := json.Unmarshal(body, &got); err != nil || resp.StatusCode != http.StatusBadRequest || got.Error == nil ||
				got.Error.Code != -32600 || !strings.Contains(got.Error.Message, "not supported in MCP protocol version 2025-06-18") {
				t.Errorf("batch under 2025-06-18: status %d, body %.300s; want 400 and a -32600 error naming the version", resp.StatusCode, body)
			}
		})
	}

	// A single message is served as before.
	id := session(t, base, "2025-03-26")
	resp, body := postJSON(t, base+mcpserver.PathMCP, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), false, map[string]string{"Mcp-Session-Id": id})
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"search_apis"`)) {
		t.Errorf("single tools/list: status %d, body %.200s", resp.StatusCode, body)
	}
	// The legacy SSE message endpoint cannot answer a batch as an array.
	resp, body = postJSON(t, base+mcpserver.PathMessage+"?sessionId=x", batch, false, nil)
	if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte("one JSON-RPC message per POST")) {
		t.Errorf("batch to %s: status %d, body %.200s", mcpserver.PathMessage, resp.StatusCode, body)
	}
}
