package bundles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/novelapi/novelapi/sandbox"
)

// A Surface is the public API surface of one library in one environment, as
// dumped by the embedded introspection script py/introspect.py
// (docs/protocol.md §7, "Public API map").
type Surface struct {
	Library      string         `json:"library"` // import name
	Dist         string         `json:"dist"`    // distribution name for importlib.metadata
	Version      string         `json:"version"` // distribution version, "" when unknown
	Python       string         `json:"python"`
	Modules      []string       `json:"modules"` // modules imported by the walk
	WalkFailures []WalkFailure  `json:"walk_failures"`
	Entries      []SurfaceEntry `json:"entries"`
	// Unattributed lists the paths of public callables without a
	// __module__ (numpy 1.x's ufuncs): not entries, but proof that a name
	// existed (see [Diff]).
	Unattributed []string `json:"unattributed,omitempty"`
	// Counts holds the script's own tallies: "names" seen by dir(),
	// "foreign" (defined outside the library), "non_callable", "entries".
	Counts map[string]int `json:"counts"`
	// Error is set when the library itself cannot be imported.
	Error string `json:"error,omitempty"`
	// BootstrapError is set when the library's bootstrap ([Bootstrap])
	// raised; the walk went on without it.
	BootstrapError string `json:"bootstrap_error,omitempty"`
	// Environment names the environment the surface was read in (set by Go).
	Environment string `json:"environment,omitempty"`
}

// A WalkFailure is a module that failed to import during the walk, whose
// subtree is missing from the surface (docs/protocol.md §7), or, with
// Attribute set, a public name of an imported module whose access or
// inspection raised (django.conf.settings before settings are configured),
// which alone is missing.
type WalkFailure struct {
	Module    string `json:"module"`
	Attribute string `json:"attribute,omitempty"` // "name" or "Class.method" within Module
	Error     string `json:"error"`
}

// Path returns the dotted path of what failed: the module, or the
// module's attribute.
func (f WalkFailure) Path() string {
	if f.Attribute == "" {
		return f.Module
	}
	return f.Module + "." + f.Attribute
}

// A SurfaceEntry is one public object: a function, class or (novelapi's
// extension) method of a public class. One object found under several
// import paths is one entry; APIName is the canonical path chosen by the
// protocol's ranking (§7) and Paths lists every path, best first.
type SurfaceEntry struct {
	APIName        string      `json:"api_name"`
	Kind           string      `json:"kind"`   // KindFunction, KindClass or KindMethod
	Module         string      `json:"module"` // scan module of APIName (the class's module for methods)
	DefiningModule string      `json:"defining_module"`
	Qualname       string      `json:"qualname"`
	Signature      *string     `json:"signature"` // nil when inspect.signature fails
	Parameters     []ParamInfo `json:"parameters"`
	Docstring      *string     `json:"docstring"`
	SourceFile     *string     `json:"source_file"` // prefix-normalised; nil without Python source
	SourceLine     *int        `json:"source_line"` // nil when the source cannot be located
	Paths          []string    `json:"paths"`
	ClassRole      string      `json:"class_role,omitempty"`
	// OtherCallable names the type of a callable that is neither a Python
	// function nor a class (ufuncs, distribution instances).
	OtherCallable string `json:"other_callable,omitempty"`
	// Exported reports whether one of Paths is listed in its module's
	// __all__.
	Exported    bool `json:"exported,omitempty"`
	Static      bool `json:"static,omitempty"`
	ClassMethod bool `json:"classmethod,omitempty"`
}

// ShortName returns the name the protocol's identity keys use: the last
// segment, or Class.method for methods.
func (e *SurfaceEntry) ShortName() string {
	parts := strings.Split(e.APIName, ".")
	if e.Kind == KindMethod && len(parts) >= 2 {
		return parts[len(parts)-2] + "." + parts[len(parts)-1]
	}
	return parts[len(parts)-1]
}

// HasSource reports whether the entry's code is Python source that can be
// read (a .py file and a line).
func (e *SurfaceEntry) HasSource() bool {
	return e.SourceFile != nil && strings.HasSuffix(*e.SourceFile, ".py") && e.SourceLine != nil
}

// IntrospectLimits bounds one introspection run: importing every public
// module of scipy or pandas takes a few seconds and several hundred MiB,
// and the dump is several MiB. The wall limit only stops a walk that
// hangs: sympy's walk of every module takes minutes of CPU time, and on a
// loaded machine more than 5 minutes of wall time (docs/changelog.md).
var IntrospectLimits = sandbox.Limits{
	Wall:       20 * time.Minute,
	Memory:     4 << 30,
	PIDs:       256,
	StreamCap:  256 << 20,
	OutputKill: 512 << 20,
	TmpSize:    256 << 20,
	FileSize:   256 << 20,
	OutSize:    256 << 20,
}

// ErrLibraryMissing reports an environment in which a library cannot be
// imported.
var ErrLibraryMissing = errors.New("bundles: library not importable in environment")

// Introspect runs py/introspect.py for the library whose import name is
// importName (distribution dist) inside env and returns its surface. A
// library that cannot be imported gives an error wrapping
// [ErrLibraryMissing]; failing submodules and public names that raise on
// access are recorded in WalkFailures, and the rest of the surface is kept.
func Introspect(ctx context.Context, runner sandbox.Runner, env *sandbox.Environment, importName, dist string) (*Surface, error) {
	spec := sandbox.Spec{
		Environment: env,
		Files:       []sandbox.File{{Path: "introspect.py", Data: script("introspect.py")}, {Path: "pyobj.py", Data: script("pyobj.py")}},
		Argv:        []string{"python3", "-I", "-B", sandbox.JobDir + "/introspect.py", importName, dist, sandbox.OutDir + "/surface.json"},
		Env:         threadEnv,
		Limits:      IntrospectLimits,
	}
	if boot := Bootstrap(importName); boot != "" {
		spec.Files = append(spec.Files, sandbox.File{Path: "bootstrap.py", Data: []byte(boot)})
		spec.Argv = append(spec.Argv, sandbox.JobDir+"/bootstrap.py")
	}
	res, err := runner.Run(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("introspect %s in %s: %w", importName, env.Name, err)
	}
	data, ok := res.Outputs["surface.json"]
	if !ok {
		return nil, fmt.Errorf("introspect %s in %s: no surface written (exit %d, limit %q): %s",
			importName, env.Name, res.ExitCode, res.LimitHit, tail(res.Stderr, 600))
	}
	var s Surface
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("introspect %s in %s: decode surface: %w", importName, env.Name, err)
	}
	s.Environment = env.Name
	if s.Error != "" {
		return &s, fmt.Errorf("%w: %s in environment %s: %s", ErrLibraryMissing, importName, env.Name, s.Error)
	}
	return &s, nil
}

// threadEnv keeps BLAS and OpenMP to one thread, so imports stay within the
// sandbox's pids limit and the machine's cores.
var threadEnv = map[string]string{
	"OPENBLAS_NUM_THREADS": "1",
	"OMP_NUM_THREADS":      "1",
	"MKL_NUM_THREADS":      "1",
	"MPLBACKEND":           "Agg",
	"PYTHONWARNINGS":       "ignore",
}

// tail returns the last n bytes of b as a string, trimmed.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}
