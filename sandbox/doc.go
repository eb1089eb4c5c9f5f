// Package sandbox builds Debian root filesystems ("environments") with
// debootstrap and runs Python programs inside them in isolation, with the
// bubblewrap (bwrap) or Docker backend. Nothing in novelapi runs Python
// outside a sandbox.
//
// The limits, isolation rules and adversarial cases come from the sandbox
// spec (shared/docs/sandbox-spec.md); the package reports facts (exit code,
// signals, limits hit, times, output) and leaves verdicts to its callers.
package sandbox
