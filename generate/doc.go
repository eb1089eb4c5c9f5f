// Package generate runs the generation loop of an evaluation: for each task
// it builds the protocol's evaluation prompt (docs/protocol.md §2.3)
// with knowledge from a chosen source (oracle bundle, novelapi's hybrid
// retrieval, the published dense-chunk baseline of §6, or none), asks an
// OpenAI-compatible endpoint for samples, and appends one predictions.jsonl
// record per task (§1.8), fsynced, so that a rerun resumes where it stopped.
// A bare section number in this package's comments refers to
// docs/protocol.md.
package generate
