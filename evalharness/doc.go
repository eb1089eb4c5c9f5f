// Package evalharness decides, for each model completion of a task, whether
// it passes and why: code extraction (docs/protocol.md §3), script assembly
// with the recording target-API monitor and the call-record check (§4),
// execution in the task library's sandboxed environment (docs/sandbox.md
// §4), and the failure taxonomy (§5) with novelapi's deterministic rules and
// an optional OpenAI-compatible LLM judge. A bare section number in this
// package's comments refers to docs/protocol.md.
//
// # Parseability and the per-run Python
//
// Extraction needs Python's own ast.parse (§3, §9.1). The sandbox Runner
// hosts one process per run and cannot keep a helper alive, so the harness
// never asks a separate process whether a snippet parses while evaluating:
// Go computes the ordered candidate tiers of §3 (pure text work), and the
// evaluation runner (py/runner.py) picks the first parseable candidate
// inside the same sandbox run that then executes it. Stand-alone extraction
// (Harness.Extract) batches all responses of a call into a single sandbox
// run of py/parse.py. Results come back only as JSON records written to
// sandbox.OutDir with a per-run nonce and a final "done" record
// (docs/sandbox.md P6), never from stdout.
//
// # Imported pools
//
// Tasks imported from other studies (package importers) use extension
// fields: a hidden setup run before the monitor (CodeUpdateArena installs
// its fictitious update there), an entry-point spy scope (the completion
// defines a function the tests call; the runner counts the target calls
// made inside it up to the end of the test), several spied APIs with
// per-API call counts (PriCoder-style required-API recall), and the spy
// switched off (HumanEval-style pools, reported as spy_off).
//
// # Departures from the published harness
//
// docs/protocol.md states each under the section it departs from; in short:
//
//   - A run passes only if the runner's records are complete (a "done"
//     record with the nonce): a completion that calls os._exit(0) or
//     sys.exit(0) before the test fails with HARNESS_TAMPER, where the
//     published harness, trusting the exit code, passed it (§4.3).
//   - The test runs in a judge process that never runs the completion's
//     code, on the values the completion left, rebuilt from plain data by
//     an allow-list decoder, and proxies for its own objects; the test and
//     the expected records never reach the completion's process
//     (docs/threat-model.md, §4.1).
//   - The spy's counts and the call records that decide a verdict are held
//     by the runner, out of the completion's reach, and the judge binds the
//     monitor's names for the test from them; writing the monitor's state
//     or reaching for the runner's (frames, the garbage collector, ctypes)
//     is HARNESS_TAMPER (§4.3, docs/threat-model.md §3.1).
//   - The runner compiles the flat script first and reports where each
//     part sits, so users read "line N of your code" instead of a line of
//     _solution.py; the classifier and the judge keep the protocol's stderr
//     (§4.1, §4.7).
//   - Part [A] falls back to shorter prefixes when the target's parent is a
//     class (§4.1).
//   - Callable objects that are neither classes nor functions (scipy.stats
//     distributions) are spied by a proxy, several targets can share one
//     spy, and the spy notes where an exception left a target call (§4.4).
//     Class targets are spied through a derived metaclass's __call__
//     (classes defining only __new__, constructors that never run
//     __init__, signatures read by introspection), classmethods,
//     staticmethods, properties and methods of built-in types keep their
//     kind, and a target that cannot be spied is the task's defect
//     (INFRA_ERROR), never the completion's (§4.4).
//   - Failures are labelled from the run's records by default (the
//     runtime taxonomy, rules "runtime:*"); Config.Taxonomy
//     TaxonomyProtocol applies §5.2's procedure on stderr text exactly.
//     HARNESS_TAMPER has its own rule, and the judge is optional (§5.2).
//     Empty and unparseable responses keep the protocol's label,
//     WrongAPISelection, under the protocol taxonomy (§9.6).
//   - With RunConfig.ScoreMissing a task without a prediction is scored as a
//     failure (NO_PREDICTION), and a run directory of a different evaluator
//     is refused rather than re-scored unless RunConfig.Rescore (§1.8).
//   - Fingerprint hashes follow §4.5's description; reference records built
//     elsewhere may differ in them.
package evalharness
