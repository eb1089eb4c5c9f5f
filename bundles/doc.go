// Package bundles models knowledge bundles of novel Python APIs and the
// formats and renderings of the published NovelAPIBench benchmark, as
// docs/protocol.md describes them; a bare section number (§2.2) in this
// package's comments refers to that page.
//
// A [Bundle] decomposes one API into components served separately: S
// (S_name and S_param), E (examples), M (mechanism prose) and C
// (implementation source). Bundles are stored as bundles.jsonl, one record
// per line, in the published format (§1.2) plus novelapi's [Provenance];
// [ReadBundles] reads published files unchanged and reports malformed lines
// as *[jsonl.ParseError] with file and line. Stage-1 discovery records are
// [Candidate]s (§1.6).
//
// [Render] produces the knowledge text of one of the 12 [Condition]s
// byte-for-byte as the published render_knowledge (§2.2), and [Prompt] the
// evaluation prompt around it (§2.3); [RenderComponents] renders any subset
// of components in the same style for the index and the MCP server.
//
// Discovery (Stage 1) and extraction (Stage 2), which run Python inside the
// sandbox, live in discover*.go and extract*.go.
package bundles
