package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MaxBatch bounds the messages of one JSON-RPC batch.
const MaxBatch = 100

// batchesRemoved is the first MCP protocol version without JSON-RPC
// batching (MCP 2025-06-18 changelog: "Remove support for JSON-RPC
// batching"); versions are dates, so they order as strings.
const batchesRemoved = mcp.ProtocolVersion20250618

// batchHandler answers JSON-RPC batches POSTed to the streamable HTTP
// endpoint, which mcp-go v1.2.1 refuses as "request body is not valid
// json" (its handler decodes every body into one message object). Under a
// protocol version that has batches (2025-03-26; MCP 2025-03-26,
// Transports §"Sending Messages to the Server": an array of requests
// and/or notifications, or of responses) each message of the array is
// served in turn by next as if POSTed alone, with the request's headers
// (session, protocol version), and the answer is the JSON array of the
// responses, in the order of the requests; a batch of notifications and
// responses only is answered 202. Under a version without batches
// (2025-06-18 and later) the whole batch is refused with a JSON-RPC error.
//
// The version is the request's MCP-Protocol-Version header, which clients
// of 2025-06-18 and later must send; else a version a message of the batch
// declares in its _meta (2026-07-28 and later); else the one negotiated by
// the session's initialize (versions); else 2025-03-26, as the
// specification says a server without the header must assume (MCP
// 2025-06-18, Transports §"Protocol Version Header"). Other bodies, and
// other methods, go to next unchanged. The body must have been read
// already ([limitBody]).
type batchHandler struct {
	next     http.Handler
	versions *sync.Map // session ID → protocol version negotiated at initialize
}

func (h *batchHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.PARSE_ERROR, "read request body: "+err.Error())
		return
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '[' {
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.next.ServeHTTP(w, r)
		return
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(body, &msgs); err != nil {
		writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.PARSE_ERROR, "JSON-RPC batch is not valid JSON: "+err.Error())
		return
	}
	version := h.version(r, msgs)
	switch {
	case version >= batchesRemoved:
		writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.INVALID_REQUEST, fmt.Sprintf(
			"JSON-RPC batches are not supported in MCP protocol version %s (batching was removed in %s): send each message in its own POST",
			version, batchesRemoved))
		return
	case len(msgs) == 0:
		writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.INVALID_REQUEST, "empty JSON-RPC batch")
		return
	case len(msgs) > MaxBatch:
		writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.INVALID_REQUEST, fmt.Sprintf(
			"JSON-RPC batch of %d messages; the limit is %d", len(msgs), MaxBatch))
		return
	}
	var out []json.RawMessage
	for i, m := range msgs {
		head := messageHead(m)
		if head.Method == string(mcp.MethodInitialize) {
			// MCP 2025-03-26, Lifecycle §Initialization: "The initialize
			// request MUST NOT be part of a JSON-RPC batch".
			out = append(out, errorMessage(head.ID, mcp.INVALID_REQUEST, "initialize must not be part of a JSON-RPC batch: send it alone"))
			continue
		}
		rec := &recorder{header: http.Header{}}
		sub := r.Clone(r.Context())
		sub.Body, sub.ContentLength = io.NopCloser(bytes.NewReader(m)), int64(len(m))
		h.next.ServeHTTP(rec, sub)
		resp, ok := rec.response()
		switch {
		case ok && resp != nil:
			out = append(out, resp)
		case ok: // a notification or response, accepted
		case i == 0 && len(out) == 0:
			// The transport refused the request itself (session unknown,
			// bad protocol version header): it refuses every message alike.
			rec.copyTo(w)
			return
		case head.ID != nil:
			out = append(out, errorMessage(head.ID, mcp.INVALID_REQUEST, fmt.Sprintf("HTTP %d: %s", rec.status, bytes.TrimSpace(rec.body.Bytes()))))
		}
	}
	if len(out) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	b, err := json.Marshal(out)
	if err != nil {
		writeJSONRPCError(w, http.StatusInternalServerError, nil, mcp.INTERNAL_ERROR, "encode batch response: "+err.Error())
		return
	}
	_, _ = w.Write(append(b, '\n'))
}

// version returns the protocol version a batch is judged under (see
// [batchHandler]).
func (h *batchHandler) version(r *http.Request, msgs []json.RawMessage) string {
	if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" {
		return v
	}
	for _, m := range msgs {
		if v := messageHead(m).Params.Meta.ProtocolVersion; v != "" {
			return v
		}
	}
	if id := r.Header.Get(server.HeaderKeySessionID); id != "" {
		if v, ok := h.versions.Load(id); ok {
			return v.(string)
		}
	}
	return mcp.ProtocolVersion20250326
}

// head is what batchHandler reads of one message.
type head struct {
	ID     any    `json:"id"`
	Method string `json:"method"`
	Params struct {
		Meta struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// messageHead decodes the head of m; a malformed message gives the zero
// head, and the transport reports it.
func messageHead(m json.RawMessage) head {
	var h head
	_ = json.Unmarshal(m, &h)
	return h
}

// errorMessage is an encoded JSON-RPC error response.
func errorMessage(id any, code int, msg string) json.RawMessage {
	return json.RawMessage(mustJSON(jsonrpcError(id, code, msg)))
}

// recorder collects one sub-request's answer. It is not an http.Flusher,
// so mcp-go answers with one JSON body instead of upgrading to an event
// stream (notifications sent while a batched request runs are dropped).
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

// response returns the JSON-RPC response recorded, nil when the message
// was accepted without one (202), and ok false when the transport refused
// it with an HTTP error instead.
func (r *recorder) response() (json.RawMessage, bool) {
	switch {
	case r.status == http.StatusAccepted:
		return nil, true
	case r.status == http.StatusOK && json.Valid(r.body.Bytes()):
		return json.RawMessage(bytes.TrimSpace(r.body.Bytes())), true
	case json.Valid(r.body.Bytes()) && bytes.Contains(r.body.Bytes(), []byte(`"jsonrpc"`)):
		return json.RawMessage(bytes.TrimSpace(r.body.Bytes())), true // a JSON-RPC error with an HTTP status
	}
	return nil, false
}

// copyTo writes the recorded answer to w.
func (r *recorder) copyTo(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body.Bytes())
}

// refuseBatch answers a JSON-RPC batch POSTed to the legacy SSE message
// endpoint with a JSON-RPC error: that transport answers each message on
// the event stream, one event per message, so a batch could not get its
// array of responses. Other requests go to next. The body must have been
// read already ([limitBody]).
func refuseBatch(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.PARSE_ERROR, "read request body: "+err.Error())
				return
			}
			if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
				writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.INVALID_REQUEST,
					"the legacy SSE transport takes one JSON-RPC message per POST; send batches to "+PathMCP+" (streamable HTTP, protocol 2025-03-26)")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

// recordVersion remembers the protocol version negotiated by a session's
// initialize, for [batchHandler]; forgetVersion drops it when the session
// ends.
func (s *Server) recordVersion(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
	if cs := server.ClientSessionFromContext(ctx); cs != nil && cs.SessionID() != "" && res != nil {
		s.versions.Store(cs.SessionID(), res.ProtocolVersion)
	}
}

func (s *Server) forgetVersion(_ context.Context, cs server.ClientSession) {
	s.versions.Delete(cs.SessionID())
}
