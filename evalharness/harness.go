package evalharness

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// DefaultEnvironment is the environment of libraries without an entry in
// Config.EnvNames or DefaultEnvNames.
const DefaultEnvironment = "trixie-sci"

// DefaultEnvNames maps a library config key to its default environment.
var DefaultEnvNames = map[string]string{
	"numpy": "trixie-sci", "scipy": "trixie-sci", "pandas": "trixie-sci",
}

// Config configures a Harness. The zero value of each optional field is
// documented; Runner and a way to find environments are required.
type Config struct {
	// Runner executes the scripts (required).
	Runner sandbox.Runner
	// Envs resolves a library name to its environment. nil means Store with
	// EnvNames. A task's own Environment field goes through Store when
	// Store is set (Envs otherwise gets the library).
	Envs func(library string) (*sandbox.Environment, error)
	// Store holds the environments; used for pool.Task.Environment and when Envs is nil.
	Store *debenv.Store
	// EnvNames maps library → environment name; missing libraries use
	// DefaultEnvNames, then DefaultEnvironment.
	EnvNames map[string]string
	// Judge configures the optional LLM judge (§5.2); nil means the
	// deterministic rules and the protocol's fallback only.
	Judge *JudgeConfig
	// NoLabels turns failure classification off (labels ""), like the
	// protocol's --no-failure-labels.
	NoLabels bool
	// Taxonomy chooses how failures are labelled (docs/protocol.md §5.2):
	// TaxonomyRuntime ("" too) from the run's records, TaxonomyProtocol
	// the published procedure on stderr text. New refuses other values.
	Taxonomy string
	// Memory is the memory limit of a run in bytes; 0 means 4 GiB (heavy
	// scientific libraries need more than the sandbox default).
	Memory int64
	// Log receives diagnostics; nil means slog.Default().
	Log *slog.Logger
}

// DefaultMemory is the memory limit of an evaluation run.
const DefaultMemory = 4 << 30

// A Harness evaluates completions. It is safe for concurrent use; runs that
// time out are retried once, serialised through one lock (docs/protocol.md §4.6).
type Harness struct {
	cfg     Config
	log     *slog.Logger
	retryMu sync.Mutex
}

// New returns a Harness for cfg.
func New(cfg Config) (*Harness, error) {
	if cfg.Runner == nil {
		return nil, errors.New("evalharness: Config.Runner is nil")
	}
	if cfg.Envs == nil && cfg.Store == nil {
		return nil, errors.New("evalharness: Config needs Envs or Store")
	}
	if cfg.Memory <= 0 {
		cfg.Memory = DefaultMemory
	}
	tax, err := taxonomyName(cfg.Taxonomy)
	if err != nil {
		return nil, err
	}
	cfg.Taxonomy = tax
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	return &Harness{cfg: cfg, log: log}, nil
}

// environment returns the environment a task runs in.
func (h *Harness) environment(task *pool.Task) (*sandbox.Environment, error) {
	return h.envFor(task.Library, task.Environment)
}

func (h *Harness) envFor(library, name string) (*sandbox.Environment, error) {
	if h.cfg.Envs != nil && (name == "" || h.cfg.Store == nil) {
		return h.cfg.Envs(library)
	}
	if h.cfg.Store == nil {
		return nil, fmt.Errorf("environment %q for library %q: no store configured", name, library)
	}
	if name == "" {
		name = h.cfg.EnvNames[library]
	}
	if name == "" {
		name = DefaultEnvNames[library]
	}
	if name == "" {
		name = DefaultEnvironment
	}
	return h.cfg.Store.Get(name)
}

// A CheckResult answers the MCP check_code tool: agent code run with the
// target-API spy (no test, no call-record check).
type CheckResult struct {
	Ran           bool   `json:"ran"`            // the code finished without raising
	TargetCalled  bool   `json:"target_called"`  // the spy counted at least one call
	Calls         int    `json:"calls"`          // number of target calls
	SpyInstalled  bool   `json:"spy_installed"`  // the monitor could wrap the target
	SpyReported   bool   `json:"spy_reported"`   // the runner reported the spy's state (false: compile error, timeout, tamper)
	Reason        string `json:"reason"`         // why there is no normal verdict (timeout, tamper, compile error); "" otherwise
	ExceptionType string `json:"exception_type"` // "" when it ran
	Message       string `json:"message"`        // exception message, ≤ 500 chars, lines as in Where
	// Where locates the exception in the script: "line 3 of your code" (the
	// innermost frame in the checked code, or a SyntaxError's line), or a
	// part the harness adds ("line 7 of the harness setup"); "" when unknown.
	Where string `json:"where,omitempty"`
	// Line is Where's line number when it is in the checked code (1-based,
	// as sent), else 0.
	Line      int    `json:"line,omitempty"`
	Label     string `json:"label"` // taxonomy label of the failure, "Pass" when ran and called
	Rationale string `json:"rationale"`
	Status    string `json:"status"` // Status* verdict of the run
	// Signal names the signal that ended the run (CRASH, RESOURCE_LIMIT;
	// see Verdict.Signal); "" otherwise.
	Signal string `json:"signal,omitempty"`
	Stdout string `json:"stdout"` // last 2,000 chars of what the sandbox kept
	// StdoutCut counts the bytes of stdout the sandbox dropped beyond its
	// stream cap (sandbox.Limits.StreamCap): Stdout then ends where the
	// kept part ends, not where the program's output did.
	StdoutCut int64  `json:"stdout_cut,omitempty"`
	Stderr    string `json:"stderr"` // last 2,000 chars; script lines named as in Where
}
