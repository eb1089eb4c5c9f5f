// Package construct builds task pools from knowledge bundles (Stage 3 of
// novelapibench-protocol §7) and filters them (Stage 4: C1 reference
// validity, C2 novelty and C3 solvability), offline where the protocol used
// a hosted model: tasks are grounded in the bundles' executed examples and
// their tests are derived execute-then-assert in the sandbox.
package construct
