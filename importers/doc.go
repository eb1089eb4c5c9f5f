// Package importers turns task pools written by other studies into
// novelapi's formats, so that their API knowledge is indexed and served like
// novelapi's own bundles and their tasks run through the same
// spy-instrumented harness (docs/protocol.md §1.2, §1.3, §4).
//
// Three shapes are supported:
//
//   - CodeUpdateArena (Liu et al. 2024): fictitious updates of real
//     functions with program-synthesis examples; see [ImportCodeUpdateArena].
//   - PriCoder-style pools (NdonnxEval, NumbaEval): tasks with several
//     required APIs (api_list) and a docs file per API; see [ImportPriCoder].
//   - HumanEval-style pools: tasks without a named API, run as a general
//     executor with the spy requirement off; see [ImportHumanEval].
//
// Each importer writes into one directory: bundles.jsonl (when the pool
// documents APIs), tasks.jsonl, expected_calls.jsonl (status ok, no call
// records: the pool's own tests decide), reference_predictions.jsonl (the
// reference solutions as predictions, for C1 runs), skipped.jsonl and
// import.json. docs/importers.md describes the mapping field by field and
// what the harness still has to provide. A bare section number (§1.3) in
// this package's comments refers to docs/protocol.md.
package importers
