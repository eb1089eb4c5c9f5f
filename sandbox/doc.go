// Package sandbox runs Python programs in isolation inside Debian root
// filesystems ("environments", built by package debenv), with the
// bubblewrap (bwrap) or Docker backend. Nothing in novelapi runs Python
// outside a sandbox.
//
// The limits, isolation rules and adversarial cases come from the sandbox
// specification (docs/sandbox.md); the package reports facts (exit code,
// signals, limits hit, times, output) and leaves verdicts to its callers.
// Section numbers (§4.3) and properties (P13) in this package's comments
// refer to that page.
package sandbox
