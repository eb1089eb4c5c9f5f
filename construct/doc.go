// Package construct builds task pools from knowledge bundles (Stage 3 of
// docs/protocol.md §7) and filters them (Stage 4: C1 reference
// validity, C2 novelty and C3 solvability), offline where the protocol used
// a hosted model: tasks are grounded in the bundles' executed examples and
// their tests are derived execute-then-assert in the sandbox.
//
// A bare section number (§4.1) in this package's comments refers to
// docs/protocol.md, which also lists where the builders depart from the
// published pipeline (§7).
package construct
