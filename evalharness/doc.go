// Package evalharness decides, for each model completion of a task, whether
// it passes and why: code extraction (novelapibench-protocol §3), script
// assembly with the recording target-API monitor and the call-record check
// (§4), execution in the task library's sandboxed environment (sandbox-spec
// §4), and the failure taxonomy (§5) with novelapi's deterministic rules and
// an optional OpenAI-compatible LLM judge.
//
// # Parseability and the per-run Python
//
// Extraction needs Python's own ast.parse (protocol §3, §9.1). The sandbox
// Runner hosts one process per run and cannot keep a helper alive, so the
// harness never asks a separate process whether a snippet parses while
// evaluating: Go computes the ordered candidate tiers of §3 (pure text work),
// and the evaluation runner (py/runner.py) picks the first parseable
// candidate inside the same sandbox run that then executes it. Stand-alone
// extraction (Harness.Extract) batches all responses of a call into a single
// sandbox run of py/parse.py. Results come back only as JSON records written
// to sandbox.OutDir with a per-run nonce and a final "done" record
// (sandbox-spec P6), never from stdout.
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
package evalharness

// # Departures from the published harness
//
//   - A run passes only if the runner's records are complete (a "done"
//     record with the nonce): a completion that calls os._exit(0) or
//     sys.exit(0) before the test fails (HARNESS_TAMPER), where the
//     published harness, trusting the exit code, passed it.
//   - The runner compiles the flat script first (so SyntaxErrors are the
//     protocol's), then executes setup, completion and test as separate
//     units in one namespace, to tell where an exception arose and how many
//     target calls the completion made before the test reset the count.
//   - Part [A] falls back to shorter prefixes when the target's parent is a
//     class (method targets such as pandas.Series.case_when), instead of
//     failing every completion.
//   - A target that is a callable object but neither a class nor a function
//     (a scipy.stats distribution such as scipy.stats.triang, an instance of
//     triang_gen) is spied by a proxy instead of the published plain wrapper
//     function, which broke attribute access: reads, writes, repr, equality,
//     hash, pickling and isinstance (its __class__) go to the object, and a
//     call of it or of any of its methods counts and leaves a "call" record
//     (with "method" naming the method). type() of the proxy and identity
//     with references taken before setup differ. A method reached through
//     an instance (scipy.stats.irwinhall.fit) is patched on the instance.
//     CheckCode also watches a class's instances (bundles'
//     Provenance.Instances) as the class, and its part [A] falls back to
//     shorter prefixes for every parent.
//   - The spy also notes, for exceptions leaving a target call, the frames
//     below it, whether the signature bound the arguments and the exception's
//     causes: the inputs of the "novelapi:*" taxonomy rules.
//   - The spy's counts and call records that decide target_called, spy
//     calls and the call-record check are held by the runner (a one-shot
//     hook the monitor takes at setup), and the monitor's functions run with
//     a copy of the builtins taken at setup. A completion that writes or
//     rebinds _target_api_call_count is HARNESS_TAMPER; one that patches
//     builtins or forges _target_api_calls fails the check as any wrong
//     call would. The visible names keep working for published check blocks.
//   - HARNESS_TAMPER has its own rule ("novelapi:harness-tamper", before all
//     others): WrongAPISelection when the spy saw no target call during the
//     completion, else WrongLogic. The protocol has no tamper label.
//   - Empty and unparseable responses keep the protocol's label: both
//     extract to "" (§3 step 9), so the monitor assertion fails and §5.2 (a)
//     gives WrongAPISelection (§9.6, §9.8: "an empty or prose answer is
//     WrongAPISelection, not WrongSyntax"). Code that ast.parse accepts but
//     compile rejects is WrongSyntax (§9.1). Kept for parity of labels.
//   - Run with ScoreMissing (the CLI) scores tasks of the pool without a
//     prediction as failures (status NO_PREDICTION, label WrongAPISelection,
//     rule "novelapi:no-prediction": an absent answer is an empty one),
//     where the published evaluator summarises predicted tasks only.
//   - The runner reports where each part (setup, completion, test) sits in
//     the flat script (a "layout" record), and the text shown to users
//     (check_code's message, stderr and where; results' error) names
//     "line N of your code", "line N of the task's test" or "line N of the
//     harness setup" instead of `File "_solution.py", line 450`. The
//     classifier and the judge keep the protocol's stderr.
//   - Fingerprint hashes (h, r, keys, cols, dtypes, idx) follow §4.5's
//     description; reference records built elsewhere may differ in them.
