package mcpserver

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/project"
)

// instructions is the text/template of the server instructions sent in
// initialize, executed with [instructionsData].
//
//go:embed instructions.md
var instructions string

var instructionsTmpl = template.Must(template.New("instructions.md").Parse(instructions))

// instructionsData is what instructions.md is rendered with.
type instructionsData struct {
	Exec bool // check_code and evaluate are offered (Config.Harness is set)
}

// renderInstructions returns the server instructions for a server that
// runs code (exec) or not.
func renderInstructions(exec bool) string {
	var sb strings.Builder
	if err := instructionsTmpl.Execute(&sb, instructionsData{Exec: exec}); err != nil {
		panic(err) // a static template over a struct of one bool
	}
	return sb.String()
}

// Defaults for [Config].
const (
	DefaultName       = "novelapi"
	DefaultReadyWait  = 5 * time.Second // how long a tool call waits for the index
	DefaultMaxTokens  = 4000            // search_apis budget
	MinMaxTokens      = 500
	MaxMaxTokens      = 20000 // well under the 25k-token cap of MCP clients
	DefaultK          = 5
	MaxK              = 20
	DefaultCheckLimit = 2 // concurrent check_code sandbox runs
	// DefaultMaxBodyBytes bounds an HTTP request body: check_code's code
	// (MaxCodeBytes) and evaluate's inline predictions (MaxInlinePredictions
	// completions) fit with room to spare.
	DefaultMaxBodyBytes = 16 << 20
)

// Config configures a [Server]. The zero value is not useful: set IndexDir
// or Open.
type Config struct {
	// IndexDir is the index directory (written by `novelapi index`), opened
	// in the background by [New]. Ignored when Open is set.
	IndexDir string
	// Open, when non-nil, replaces opening IndexDir. It runs once, in the
	// background; tests pass an index they built.
	Open func(ctx context.Context) (Store, error)
	// Version is the server version reported in initialize; "" means "dev".
	Version string
	// ReadyWait bounds how long a tool call waits for a still-loading index
	// before answering "not ready yet"; 0 means DefaultReadyWait, negative
	// means do not wait.
	ReadyWait time.Duration
	// Harness returns the evaluation harness that check_code and evaluate
	// run code with. It is called once, on the first such call, because
	// probing sandboxes is slow and initialize must not wait; its result
	// (or error) is kept. nil means the server does not run code: neither
	// tool is offered, and the instructions and prompt say so.
	Harness func(ctx context.Context) (*evalharness.Harness, error)
	// Eval configures the evaluate tool beyond the harness.
	Eval EvalConfig
	// ReadRoots lists directories whose files the evaluate tool may read
	// when an agent names a path (tasks_path, predictions_path), besides
	// Eval.RunsDir and the directories of Eval.TasksPath and
	// Eval.ExpectedPath, which are always allowed. Any other path is
	// refused with a tool error, so that a client of an HTTP server cannot
	// read the server's files. nil means only the directories above.
	ReadRoots []string
	// Project is the agent's project directory whose declared versions
	// search_apis and get_api serve when a call names no project and no
	// version (docs/projects.md); "" means none. A project argument may
	// name it or a directory under it or under ReadRoots.
	Project string
	// CheckConcurrency bounds concurrent check_code sandbox runs; 0 means
	// DefaultCheckLimit. Further calls wait their turn (or their ctx).
	CheckConcurrency int
	// MaxBodyBytes bounds the body of an HTTP request (Handler, ServeHTTP):
	// a longer one is refused with 413 before it is decoded. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Logger receives the server's logs; nil means slog.Default(). It must
	// not write to stdout when serving stdio.
	Logger *slog.Logger
}

// Server is novelapi's MCP server: the tools, resources and prompt of issue
// 5 over one index. Its methods are safe for concurrent use.
type Server struct {
	cfg   Config
	log   *slog.Logger
	mcp   *server.MCPServer
	start time.Time

	ready  chan struct{} // closed when loading finished (with st or err set)
	st     Store
	err    error
	catMu  sync.Mutex
	cat    *catalog // of generation catGen of st
	catGen string
	cancel context.CancelFunc
	wg     sync.WaitGroup

	closeOnce sync.Once

	harnessOnce sync.Once
	harness     *evalharness.Harness
	harnessErr  error
	checkSem    chan struct{} // bounds concurrent check_code runs
	versions    sync.Map      // session ID → protocol version negotiated (batchHandler)
	evalMu      sync.Mutex    // one evaluate run at a time
}

// New builds the server and starts opening the index in the background, so
// that initialize and tools/list answer at once whatever the index size
// (scenario T23). Close stops the loader and closes the index.
func New(cfg Config) (*Server, error) {
	if cfg.Open == nil && cfg.IndexDir == "" {
		return nil, errors.New("mcpserver: no index: set Config.IndexDir or Config.Open")
	}
	if cfg.Project != "" {
		if err := project.CheckDir(cfg.Project); err != nil {
			return nil, fmt.Errorf("mcpserver: --project: %w", err)
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ReadyWait == 0 {
		cfg.ReadyWait = DefaultReadyWait
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.CheckConcurrency <= 0 {
		cfg.CheckConcurrency = DefaultCheckLimit
	}
	s := &Server{cfg: cfg, log: cfg.Logger, start: time.Now(), ready: make(chan struct{}),
		checkSem: make(chan struct{}, cfg.CheckConcurrency)}
	hooks := &server.Hooks{}
	hooks.AddBeforeGetPrompt(s.beforeGetPrompt)
	hooks.AddBeforeReadResource(s.beforeReadResource)
	hooks.AddAfterInitialize(s.recordVersion)
	hooks.AddOnUnregisterSession(s.forgetVersion)
	s.mcp = server.NewMCPServer(DefaultName, cfg.Version,
		server.WithHooks(hooks),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithLogging(),
		server.WithRecovery(),
		server.WithToolHandlerMiddleware(s.pinTool),
		server.WithResourceHandlerMiddleware(s.pinResource),
		server.WithInstructions(renderInstructions(cfg.Harness != nil)),
	)
	s.register()

	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.wg.Go(func() { s.load(ctx) })
	return s, nil
}

// MCP returns the underlying mcp-go server, for serving it on a transport.
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// register adds every tool, resource and prompt; check_code and evaluate
// only when the server runs code (Config.Harness is set).
func (s *Server) register() {
	s.mcp.AddTool(searchTool(), s.handleSearch)
	s.mcp.AddTool(getTool(), s.handleGet)
	s.mcp.AddTool(listTool(), s.handleList)
	s.mcp.AddTool(renderTool(), s.handleRender)
	if s.cfg.Harness != nil {
		s.mcp.AddTool(checkCodeTool(), s.handleCheckCode)
		s.mcp.AddTool(s.evaluateTool(), s.handleEvaluate)
	}
	s.registerResources()
	s.registerPrompts()
}

// load opens the index and builds the catalog; it runs once.
func (s *Server) load(ctx context.Context) {
	defer close(s.ready)
	t0 := time.Now()
	open := s.cfg.Open
	if open == nil {
		dir := s.cfg.IndexDir
		open = func(ctx context.Context) (Store, error) { return OpenIndex(ctx, dir, s.log) }
	}
	st, err := open(ctx)
	if err != nil {
		s.err = fmt.Errorf("open index %s: %w", s.cfg.IndexDir, err)
		s.log.Error("index not available", "dir", s.cfg.IndexDir, "err", err)
		return
	}
	s.st = st
	_, cat := s.current()
	s.log.Info("index ready", "dir", s.cfg.IndexDir, "generation", st.Info().Generation, "apis", len(cat.names),
		"libraries", len(cat.libs), "elapsed", time.Since(t0).Round(time.Millisecond))
}

// pinKey is the context key of the store a request is served from.
type pinKey struct{}

// pinnedStore is the store and catalog of one request.
type pinnedStore struct {
	st  Store
	cat *catalog
}

// pin returns ctx carrying the store to serve one request from: the
// generation live now, kept open until release is called even when a
// rebuilt index is swapped in meanwhile ([Snapshotter]). Before the index
// is loaded it pins nothing, and [Server.store] serves what is live when
// loading ends.
func (s *Server) pin(ctx context.Context) (context.Context, func()) {
	select {
	case <-s.ready:
	default:
		return ctx, func() {}
	}
	if s.err != nil {
		return ctx, func() {}
	}
	snap, ok := s.st.(Snapshotter)
	if !ok {
		return ctx, func() {}
	}
	st, gen, release := snap.Snapshot()
	return context.WithValue(ctx, pinKey{}, &pinnedStore{st: st, cat: s.catalogOf(st, gen)}), release
}

// pinTool serves each tool call from one pinned generation ([Server.pin]).
func (s *Server) pinTool(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, release := s.pin(ctx)
		defer release()
		return next(ctx, req)
	}
}

// pinResource serves each resource read from one pinned generation.
func (s *Server) pinResource(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		ctx, release := s.pin(ctx)
		defer release()
		return next(ctx, req)
	}
}

// catalogOf returns the catalog of st, the store of generation gen, built
// once per generation.
func (s *Server) catalogOf(st Store, gen string) *catalog {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if s.cat == nil || s.catGen != gen {
		s.cat, s.catGen = buildCatalog(st), gen
	}
	return s.cat
}

// current returns the store and catalog live now, unpinned: for a
// [Snapshotter], a rebuild may close it while it is used (its searches
// then fail with an error). The index must be loaded.
func (s *Server) current() (Store, *catalog) {
	snap, ok := s.st.(Snapshotter)
	if !ok {
		return s.st, s.catalogOf(s.st, "")
	}
	st, gen, release := snap.Snapshot()
	release()
	return st, s.catalogOf(st, gen)
}

// Ready blocks until the index is loaded or ctx ends, and returns the load
// error, if any.
func (s *Server) Ready(ctx context.Context) error {
	select {
	case <-s.ready:
		return s.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// BuildIndexHint is the command that builds the index a server needs, for
// messages about a missing index.
const BuildIndexHint = "`novelapi index build --bundles FILE --index DIR` (or `novelapi up`, which builds the bundles and the index under $NOVELAPI_HOME)"

// errNotReady is answered to the agent (as a tool error) while loading.
var errNotReady = errors.New("mcpserver: index still loading")

// store waits up to ReadyWait for the index and returns it: the store
// pinned for the request in ctx ([Server.pin]), else the one live now.
// While loading it returns errNotReady; a failed load returns the load
// error.
func (s *Server) store(ctx context.Context) (Store, *catalog, error) {
	loaded := func() (Store, *catalog, error) {
		if s.err != nil {
			return nil, nil, s.err
		}
		if p, ok := ctx.Value(pinKey{}).(*pinnedStore); ok {
			return p.st, p.cat, nil
		}
		st, cat := s.current()
		return st, cat, nil
	}
	select {
	case <-s.ready:
		return loaded()
	default:
	}
	if s.cfg.ReadyWait > 0 {
		t := time.NewTimer(s.cfg.ReadyWait)
		defer t.Stop()
		select {
		case <-s.ready:
			return loaded()
		case <-t.C:
		case <-ctx.Done():
			return nil, nil, context.Cause(ctx)
		}
	}
	return nil, nil, errNotReady
}

// storeResult is store for tool handlers: a not-ready or failed index
// becomes a tool result the agent can read and act on.
func (s *Server) storeResult(ctx context.Context) (Store, *catalog, *mcp.CallToolResult) {
	st, cat, err := s.store(ctx)
	switch {
	case err == nil:
		return st, cat, nil
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return nil, nil, mcp.NewToolResultError("The call was cancelled while the novelapi index was loading: " + err.Error())
	case errors.Is(err, errNotReady):
		return nil, nil, mcp.NewToolResultError(fmt.Sprintf(
			"The novelapi index is still loading (%.0fs since start). Retry this call in a few seconds.",
			time.Since(s.start).Seconds()))
	default:
		return nil, nil, mcp.NewToolResultError("The novelapi index could not be opened: " + err.Error() +
			". Ask the user to build it with " + BuildIndexHint + " and to start the server with --index DIR.")
	}
}

// Close stops the background loader, waits for it and closes the index. It
// is idempotent.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.cancel()
		s.wg.Wait()
		if s.st != nil {
			err = s.st.Close()
		}
	})
	return err
}

// toolError turns an argument error into a tool result and any other error
// into a protocol error: what the agent got wrong is a result, a broken
// server is an error.
func toolError(err error) (*mcp.CallToolResult, error) {
	if ae, ok := errors.AsType[*argError](err); ok {
		return mcp.NewToolResultError(ae.msg), nil
	}
	return nil, err
}

// annotate sets all four annotation hints explicitly: mcp.NewTool defaults
// to destructive and open-world (mcp-go v1.2.1, mcp/tools.go).
func annotate(title string, readOnly, destructive, idempotent, openWorld bool) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(readOnly),
		DestructiveHint: mcp.ToBoolPtr(destructive),
		IdempotentHint:  mcp.ToBoolPtr(idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(openWorld),
	})
}
