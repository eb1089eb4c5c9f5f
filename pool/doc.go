// Package pool holds the file formats of task pools and their runs, as the
// published benchmark writes them (docs/protocol.md §1): tasks.jsonl
// ([Task]), expected_calls.jsonl ([ExpectedCalls]), predictions.jsonl
// ([Prediction]), instances/<backbone>.txt, and results.jsonl
// ([TaskResult]) with its labels and statuses, plus the stock target-call
// monitor and check block that every task's test harness carries.
//
// Producers of pools (construct, importers, generate) depend on these
// formats, not on the harness that judges them (evalharness). A bare
// section number (§4.2) in this package's comments refers to
// docs/protocol.md.
package pool
