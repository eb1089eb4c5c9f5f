package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/novelapi/novelapi/debenv"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/internal/pysyntax"
	"github.com/novelapi/novelapi/pool"
)

var checkParams = []param{
	{name: "code", kind: "string", aliases: []string{"source", "script", "program", "snippet", "python", "completion"}},
	{name: "api_name", kind: "string", aliases: []string{"name", "api", "symbol", "target", "target_api", "targetApi", "qualname", "function"}},
	{name: "library", kind: "string", aliases: searchParams[1].aliases},
}

func checkCodeTool() mcp.Tool {
	return mcp.NewTool("check_code",
		mcp.WithDescription(`Run your Python code in an isolated sandbox with the target library installed at the indexed version, with a spy on the target API, and report: whether it ran without an exception, whether the target API was really called (and how often), the exception type and message, and a failure label (WrongAPISelection, WrongImport, WrongSyntax, WrongParam, WrongShapeDtype, WrongLogic, or Pass). Use it to verify a call to a novel API before you answer. The sandbox has no network and no access to the user's files; the code must be a complete, self-contained script (imports included) that exercises the API on small inline data. Runs take seconds.`),
		mcp.WithString("code", mcp.Required(), mcp.Description(fmt.Sprintf("A complete Python script, imports included; at most %d bytes. A surrounding Markdown fence is stripped; with several fenced blocks only one runs (the longest that parses, as in evaluation), so send one.", MaxCodeBytes))),
		mcp.WithString("api_name", mcp.Required(), mcp.Description(`The fully qualified API the code must call ("numpy.unstack"). For a class used through its public instance, the class or the instance ("scipy.stats.distributions.triang_gen" or "scipy.stats.triang"); calls of the instance and of its methods count.`)),
		mcp.WithString("library", mcp.Description(`Library of the API; default: taken from the index entry of api_name, else its top-level package.`)),
		// The code runs in a throw-away sandbox without network: nothing
		// outside it changes, and the same code gives the same verdict.
		annotate("Check code in a sandbox", true, false, true, false),
	)
}

// checkOut is check_code's structuredContent: the harness's CheckResult
// plus what was checked.
type checkOut struct {
	APIName string `json:"api_name"`
	Library string `json:"library"`
	Version string `json:"version,omitempty"`
	// Instances are the public instances of the API (its bundle's
	// Provenance.Instances: scipy.stats.triang for
	// scipy.stats.distributions.triang_gen), whose calls count as calls of
	// it.
	Instances []string `json:"instances,omitempty"`
	// Resolved says how a short name, alias or instance name was resolved
	// ("DataFrame.map resolved to pandas.DataFrame.map"); "" when the name
	// was the API's own.
	Resolved string `json:"resolved,omitempty"`
	// Import is the public path to import the API from (index.PreferredImport),
	// when the index holds it.
	Import string `json:"import_as,omitempty"`
	// Unknown is set when the index does not know the name and the check
	// did not find it called: the nearest names, or the candidates of an
	// ambiguous name.
	Unknown string `json:"unknown_api,omitempty"`
	// FencedBlocks counts the fenced code blocks left in the code when
	// there are several: only one runs, the one the protocol's extraction
	// picks (docs/protocol.md §3: the longest parseable python block).
	FencedBlocks int `json:"fenced_blocks,omitempty"`
	// Environment is the environment the code ran in: the one the API's
	// bundle was extracted in, so the code meets the version served;
	// "" when the index does not hold the API (the library's default).
	Environment string `json:"environment,omitempty"`
	// EnvironmentNote says why the code ran elsewhere than in the bundle's
	// environment (it is not built on this machine); "" otherwise.
	EnvironmentNote string `json:"environment_note,omitempty"`
	evalharness.CheckResult
}

func (s *Server) handleCheckCode(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := bindArgs("check_code", req.GetArguments(), checkParams)
	if err != nil {
		return toolError(err)
	}
	code, err := a.requireStr("code", 0)
	if err != nil {
		return toolError(err)
	}
	if len(code) > MaxCodeBytes {
		return mcp.NewToolResultError(fmt.Sprintf("check_code: code is %d bytes; the limit is %d", len(code), MaxCodeBytes)), nil
	}
	blocks := fencedBlocks(code)
	if blocks <= 1 {
		code = stripFences(code)
	} // else the protocol's extraction (docs/protocol.md §3) picks a block, as in evaluation
	rawName, err := a.requireStr("api_name", MaxQueryChars)
	if err != nil {
		return toolError(err)
	}
	library, err := a.str("library", 200)
	if err != nil {
		return toolError(err)
	}
	name, _, source := parseHandle(rawName)
	if !pysyntax.IsDottedName(name) {
		return mcp.NewToolResultError(fmt.Sprintf("check_code: api_name %q is not a dotted Python name; give the API as a module path (numpy.linalg.norm, pandas.DataFrame.map)", truncate(name, 200))), nil
	}
	out := checkOut{APIName: name}

	// Resolve the name as get_api does (alias, short name, public
	// instance) when the index is loaded. check_code also works for APIs
	// the index does not hold: an unresolved name is spied as given, and
	// the answer says the index does not know it.
	// The code runs in the environment the API's bundle was extracted in
	// (its Provenance.Environment): a private library's layered
	// environment (docs/private.md §2), a Debian library's suite (sid-sci
	// for a trixie -> sid index, where numpy.strings.slice exists), so it
	// meets the version get_api serves.
	var unresolved, env string
	private := false
	if st, cat, err := s.store(ctx); err == nil {
		b, via, msg, err := resolveAPI(ctx, st, cat, "check_code", name, library)
		if err != nil {
			return nil, err
		}
		if b != nil && source != "" {
			// A handle naming a source (a private library served beside a
			// Debian one of the same name, docs/private.md §4) runs the
			// code in that source's environment.
			if bb, ok := st.BundleFrom(b.APIName, "", source); ok {
				b = bb
			}
		}
		if b != nil {
			out.APIName, out.Library, out.Version, out.Instances = b.APIName, b.Library, bundleVersion(b), b.PublicInstances()
			env, private = b.Provenance.Environment, b.Private()
			out.Import = index.PreferredImport(b.Names())
			if via != "name" && b.APIName != name {
				out.Resolved = fmt.Sprintf("%s resolved to %s", name, b.APIName)
			}
		} else {
			unresolved = msg
		}
		if out.Library == "" && library != "" {
			if lib, ok := cat.library(library); ok {
				out.Library = lib
			}
		}
	}
	if out.Library == "" {
		out.Library = library
	}
	if out.Library == "" {
		out.Library = strings.SplitN(name, ".", 2)[0]
	}

	h, res := s.harnessResult(ctx)
	if res != nil {
		return res, nil
	}
	select {
	case s.checkSem <- struct{}{}:
		defer func() { <-s.checkSem }()
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	cr, err := h.CheckCodeIn(ctx, env, code, out.APIName, out.Library, out.Instances...)
	if err != nil && env != "" && !private && errors.Is(err, debenv.ErrUnknownEnvironment) {
		// A Debian bundle whose environment is not built here (an index
		// copied from another machine): the library's default
		// environment, said in the answer.
		out.EnvironmentNote = fmt.Sprintf("the bundle's environment %s is not built on this machine; the code ran in %s's default environment, whose version may differ from the one served", env, out.Library)
		env = ""
		cr, err = h.CheckCodeIn(ctx, env, code, out.APIName, out.Library, out.Instances...)
	}
	out.Environment = env
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		// The sandbox could not run the code (no environment for the
		// library, backend down): the agent can do nothing about it but
		// should know, so it is a tool error, not a protocol error.
		return mcp.NewToolResultError(fmt.Sprintf("check_code: could not run the code for %s (library %s): %v", out.APIName, out.Library, err)), nil
	}
	out.CheckResult = cr
	if blocks > 1 {
		out.FencedBlocks = blocks
	}
	if unresolved != "" && !(cr.Ran && cr.TargetCalled) {
		// Not an API of the index, and the check did not find it called:
		// say so rather than leave only a failure label on the code.
		out.Unknown = unresolved
	}
	return mcp.NewToolResultStructured(out, checkText(out)), nil
}

// checkText is the agent-facing summary of a check.
func checkText(o checkOut) string {
	var sb strings.Builder
	ver := ""
	if o.Version != "" {
		ver = " " + o.Version
	}
	fmt.Fprintf(&sb, "check_code for %s (library %s%s)\n", o.APIName, o.Library, ver)
	if o.Resolved != "" {
		fmt.Fprintf(&sb, "NOTE: %s\n", o.Resolved)
	}
	if o.Unknown != "" {
		fmt.Fprintf(&sb, "NOTE: the index has no single API of this name; the check spied it as given. %s\n", o.Unknown)
	}
	if o.EnvironmentNote != "" {
		fmt.Fprintf(&sb, "NOTE: %s\n", o.EnvironmentNote)
	}
	if o.FencedBlocks > 1 {
		fmt.Fprintf(&sb, "NOTE: the code has %d fenced blocks; only one ran, the one evaluation would pick (the longest that parses as Python). Send the whole program as one block.\n", o.FencedBlocks)
	}
	fmt.Fprintf(&sb, "ran without exception: %v\n", o.Ran)
	switch {
	case o.SpyInstalled:
		fmt.Fprintf(&sb, "target %s called: %v (%d call(s))", o.APIName, o.TargetCalled, o.Calls)
	case o.SpyReported:
		fmt.Fprintf(&sb, "target %s called: %v (%d call(s)) — the spy could not be installed: the target may not exist in this version", o.APIName, o.TargetCalled, o.Calls)
	case o.Reason != "":
		// No spy report (timeout, tamper, compile error): calls made
		// before the end are not known.
		fmt.Fprintf(&sb, "target %s called: unknown — %s", o.APIName, o.Reason)
	default:
		fmt.Fprintf(&sb, "target %s called: unknown — the run reported no spy state", o.APIName)
	}
	sb.WriteString("\n")
	if len(o.Instances) > 0 {
		fmt.Fprintf(&sb, "calls through its public instance count: %s\n", strings.Join(o.Instances, ", "))
	}
	if o.ExceptionType != "" {
		fmt.Fprintf(&sb, "exception: %s: %s\n", o.ExceptionType, o.Message)
		if o.Where != "" {
			fmt.Fprintf(&sb, "raised at: %s\n", o.Where)
		}
	}
	fmt.Fprintf(&sb, "label: %s", o.Label)
	if o.Rationale != "" {
		fmt.Fprintf(&sb, " — %s", o.Rationale)
	}
	sb.WriteString("\n")
	if o.Label == pool.LabelWrongImport && o.Import != "" {
		fmt.Fprintf(&sb, "hint: %s is imported as %s\n", o.APIName, o.Import)
	}
	switch {
	case o.Ran && o.TargetCalled:
		sb.WriteString("Verdict: OK — the code runs and really calls the target API.\n")
	case o.Ran:
		sb.WriteString("Verdict: the code runs but never calls the target API; fix the call (see get_api).\n")
	default:
		sb.WriteString("Verdict: the code fails; fix it using the exception above and the signature from get_api.\n")
	}
	// Leading spaces of the first line are kept (a DataFrame's header).
	if t := strings.TrimRight(strings.TrimLeft(o.Stdout, "\r\n"), " \t\r\n"); t != "" {
		if o.StdoutCut > 0 {
			fmt.Fprintf(&sb, "stdout (the end of what the sandbox kept; %d bytes after it were dropped at its output cap):\n%s\n", o.StdoutCut, truncateTail(t, 800))
		} else {
			fmt.Fprintf(&sb, "stdout (tail):\n%s\n", truncateTail(t, 800))
		}
	}
	if t := strings.TrimSpace(o.Stderr); t != "" && !o.Ran {
		fmt.Fprintf(&sb, "stderr (tail):\n%s\n", truncateTail(t, 1200))
	} else if w := warningLines(o.Stderr); w != "" {
		// Code that runs may still use an API the release deprecates
		// (DataFrame.applymap): the warning is the news.
		fmt.Fprintf(&sb, "warnings:\n%s\n", truncateTail(w, 600))
	}
	return sb.String()
}

// fencedBlocks counts the ``` fenced blocks of code (pairs of fences).
func fencedBlocks(code string) int {
	return strings.Count(code, "```") / 2
}

// warningLines returns the lines of stderr that report a Python warning
// ("...: FutureWarning: DataFrame.applymap has been deprecated..."), one
// each, in order.
func warningLines(stderr string) string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); warningRE.MatchString(l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

var warningRE = regexp.MustCompile(`\b\w*Warning: `)

func truncateTail(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}

// stripFences removes one surrounding ```python … ``` fence, which agents
// often leave around code. Code with several fenced blocks is not
// stripped (see fencedBlocks).
func stripFences(code string) string {
	t := strings.TrimSpace(code)
	if !strings.HasPrefix(t, "```") {
		return code
	}
	nl := strings.IndexByte(t, '\n')
	if nl < 0 {
		return code
	}
	t = t[nl+1:]
	if i := strings.LastIndex(t, "```"); i >= 0 {
		t = t[:i]
	}
	return t
}

// errNoHarness is answered when the server runs without code execution;
// such a server does not offer the tools that need it.
var errNoHarness = errors.New("code execution is off on this server")

// harnessResult builds the harness on first use and returns it, or a tool
// result explaining why code cannot run.
func (s *Server) harnessResult(ctx context.Context) (*evalharness.Harness, *mcp.CallToolResult) {
	if s.cfg.Harness == nil {
		return nil, mcp.NewToolResultError(errNoHarness.Error())
	}
	s.harnessOnce.Do(func() {
		s.harness, s.harnessErr = s.cfg.Harness(context.WithoutCancel(ctx))
		if s.harnessErr != nil {
			s.log.Error("evaluation harness unavailable", "err", s.harnessErr)
		}
	})
	if s.harnessErr != nil {
		return nil, mcp.NewToolResultError("code execution is unavailable on this server: " + s.harnessErr.Error())
	}
	return s.harness, nil
}
