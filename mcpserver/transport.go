package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// HTTP paths served by [Server.Handler].
const (
	PathMCP     = "/mcp"     // streamable HTTP (MCP 2025-03-26 and later)
	PathSSE     = "/sse"     // legacy SSE stream (MCP 2024-11-05)
	PathMessage = "/message" // legacy SSE client→server messages
	PathHealth  = "/healthz" // index status as JSON
)

// StdioWorkers is the number of tool calls served at once over stdio (the
// most mcp-go allows). Code checks beyond [Config.CheckConcurrency] wait
// for a sandbox inside their worker.
const StdioWorkers = 100

// ServeStdio serves MCP over newline-delimited JSON-RPC on in and out until
// ctx ends or in reaches EOF. Nothing but JSON-RPC is written to out; the
// transport's own errors go to the server's logger. It uses Listen rather
// than mcp-go's ServeStdio, which installs its own signal handler (signals
// are the caller's, through ctx). Requests read before EOF are answered before it
// returns (see [DrainTimeout]).
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ss := server.NewStdioServer(s.mcp)
	ss.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	// mcp-go serves tool calls on 5 workers by default; check_code calls
	// waiting for a sandbox slot held them all, and a search queued behind
	// them for minutes. With StdioWorkers, lookups stay immediate unless
	// that many code checks are queued at once.
	server.WithWorkerPoolSize(StdioWorkers)(ss)
	d := newDrain(ctx, in, out)
	err := ss.Listen(ctx, d, d)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Handler returns the HTTP handler: streamable HTTP at /mcp, the legacy SSE
// transport at /sse and /message, and /healthz. Requests over loopback with
// a Host header other than localhost are refused (DNS-rebinding protection
// of mcp-go). A request body longer than Config.MaxBodyBytes is refused
// with 413 before any of it is decoded ([limitBody]). A JSON-RPC batch
// posted to /mcp is answered as its protocol version requires
// ([batchHandler]); /message refuses batches ([refuseBatch]). The returned
// close function ends the transports' sessions.
func (s *Server) Handler() (h http.Handler, closeFn func(context.Context) error) {
	stream := server.NewStreamableHTTPServer(s.mcp,
		server.WithSessionIdleTTL(30*time.Minute),
		server.WithStreamableHTTPLogger(s.log))
	sse := server.NewSSEServer(s.mcp)
	mux := http.NewServeMux()
	limit := s.cfg.MaxBodyBytes
	mux.Handle(PathMCP, limitBody(limit, &batchHandler{next: stream, versions: &s.versions}))
	mux.Handle(PathSSE, limitBody(limit, sse))
	mux.Handle(PathMessage, limitBody(limit, refuseBatch(sse)))
	mux.HandleFunc(PathHealth, s.health)
	return mux, func(ctx context.Context) error {
		err := stream.Shutdown(ctx)
		if e := sse.Shutdown(ctx); e != nil && err == nil {
			err = e
		}
		return err
	}
}

// limitBody reads the body of every POST to memory, refusing one longer
// than max bytes with 413 and a JSON-RPC error before anything is decoded,
// and hands next the body read. mcp-go reads and decodes whole bodies
// without a limit. Other methods pass with their body capped at max.
func limitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, max)
			next.ServeHTTP(w, r)
			return
		}
		tooLarge := func() {
			writeJSONRPCError(w, http.StatusRequestEntityTooLarge, nil, mcp.INVALID_REQUEST, fmt.Sprintf(
				"request body too large: the limit is %d bytes (novelapi serve --max-body)", max))
		}
		if r.ContentLength > max {
			tooLarge()
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if err != nil {
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				tooLarge()
				return
			}
			writeJSONRPCError(w, http.StatusBadRequest, nil, mcp.PARSE_ERROR, "read request body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// writeJSONRPCError answers with one JSON-RPC error object and an HTTP
// status.
func writeJSONRPCError(w http.ResponseWriter, status int, id any, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, mustJSON(jsonrpcError(id, code, msg))+"\n")
}

// jsonrpcError is a JSON-RPC 2.0 error response.
func jsonrpcError(id any, code int, msg string) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Error: mcp.NewJSONRPCErrorDetails(code, msg, nil)}
}

// health answers /healthz with the index status.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	status := map[string]any{"uptime_s": time.Since(s.start).Seconds()}
	select {
	case <-s.ready:
		if s.err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			status["status"], status["error"] = "error", s.err.Error()
		} else {
			ctx, release := s.pin(r.Context())
			defer release()
			st, cat, _ := s.store(ctx)
			info := st.Info()
			status["status"], status["apis"], status["libraries"] = "ready", len(cat.names), len(cat.libKeys)
			status["generation"], status["bundles"] = info.Generation, info.Bundles
			if info.Skipped > 0 {
				status["partial"], status["skipped"], status["skipped_names"] = true, info.Skipped, info.SkippedNames
			}
		}
	default:
		w.WriteHeader(http.StatusServiceUnavailable)
		status["status"] = "loading"
	}
	_, _ = io.WriteString(w, mustJSON(status))
}

// ServeHTTP listens on addr and serves [Server.Handler] until ctx ends,
// then shuts down gracefully (5 s). ready, if non-nil, receives the bound
// address (useful with port 0) before serving starts.
func (s *Server) ServeHTTP(ctx context.Context, addr string, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	h, closeFn := s.Handler()
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	if ready != nil {
		ready(ln.Addr())
	}
	s.log.Info("serving MCP over HTTP", "streamable", "http://"+ln.Addr().String()+PathMCP, "sse", "http://"+ln.Addr().String()+PathSSE)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = closeFn(sctx)
	if err := hs.Shutdown(sctx); err != nil {
		return err
	}
	<-errc
	return nil
}
