// Package mcpserver is novelapi's MCP server: it serves the
// knowledge bundles of novel Python APIs to coding agents, and runs their
// code against those APIs in sandboxes. Scenario numbers in this
// package's comments and tests (T15) refer to docs/mcp-scenarios.md.
//
// # Tools
//
//   - search_apis: ranked APIs with the requested components (default S and
//     E), version disclosure (exact, range, latest, fallback), provenance
//     and a handle per item, packed into a token budget with a manifest of
//     what was left out.
//   - get_api: one API by name, alias (another import path of the same
//     object) or handle, with near-miss suggestions for unknown names.
//
// search_apis and get_api add a "Signature:" line to S with the call
// signature and its / and * markers, read from the def header in the
// implementation source when it agrees with S_param (bundles carry no
// parameter kinds); render_condition stays exactly bundles.Render (in its
// structuredContent). Every answer quotes bundle text in fenced blocks it
// cannot close, so that it never reads as the server's (docs/serving.md §6).
//   - list_libraries: libraries, versions and counts of new and
//     signature-changed APIs.
//   - render_condition: the exact text of one of the 12 knowledge
//     conditions (docs/protocol.md §2.2).
//   - check_code: runs agent code with the target-API spy of the
//     evaluation harness.
//   - evaluate: runs the task pool with progress notifications and
//     cancellation, and returns the summary and the report's path.
//
// check_code and evaluate are offered only by a server that runs code
// (Config.Harness set); without it the server instructions and the prompt
// say that code execution is off.
//
// Resources: novelapi://libraries and novelapi://api/{api_name}; prompt:
// use_novel_api.
//
// # Annotations
//
// mcp-go marks tools destructive and open-world unless told otherwise
// (mcp-go v1.2.1 mcp.NewTool presets those hints), so every tool sets all four hints. The
// documentation tools are read-only, idempotent and closed-world.
// check_code is also declared read-only, idempotent and closed-world: it
// runs code only in a throw-away sandbox without network or access to the
// host's files, so nothing outside the sandbox changes and the same code
// yields the same verdict. evaluate writes a run directory (not read-only)
// but never deletes or overwrites results (not destructive) and resumes
// the same directory when repeated (idempotent); it is open-world only
// when the server is configured with a model endpoint it calls.
//
// # Arguments
//
// Tools take canonical snake_case arguments but accept the aliases agents
// are known to send (libraryName, question, userQuery, limit, ...); an
// unknown argument is a tool error naming the
// valid ones. Wrong types, unknown components and oversized inputs are
// tool errors (IsError results), never protocol errors or crashes;
// handler panics are recovered (server.WithRecovery). A version that is
// neither a PEP 440 version nor a specifier is a tool error with examples;
// k ≤ 0 means the default k, as on the command line, and the answer says so.
//
// prompts/get without its required task argument is an invalid-params
// error (-32602) and resources/read of an unknown API a resource-not-found
// error (-32002, or -32602 under protocol 2026-07-28); mcp-go v1.2.1 maps
// every handler error to -32603, so request hooks route these cases to
// mcp-go's own not-found paths (prompts.go, resources.go).
//
// # Files
//
// evaluate reads the files an agent names (tasks_path, predictions_path)
// only under Config.ReadRoots, the runs directory and the directories of
// the configured task pool and call records, after resolving symbolic
// links; other paths are refused without touching them, and read errors
// never quote the file.
//
// # Loading
//
// [New] returns at once and opens the index in the background, so
// initialize and tools/list never wait for it; a tool
// call that arrives before the index is ready waits up to
// Config.ReadyWait and then answers that the index is still loading.
//
// # Transports
//
// [Server.ServeStdio] speaks newline-delimited JSON-RPC on the given
// streams and writes nothing else to stdout (T22); [Server.Handler] serves
// streamable HTTP at /mcp and the legacy SSE transport at /sse and
// /message.
package mcpserver
