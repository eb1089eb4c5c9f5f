// Package index is novelapi's retrieval index over knowledge bundles: it
// finds the novel APIs that match what an agent asks, in words ("split an
// array into a tuple of arrays along an axis") or identifiers ("read_csv
// dtype_backend"), and hands back the components asked for.
//
// The retrieval unit is one component (S, E, M, C) of one API at one
// version, with exact-filter fields for library, version, novelty type and
// component. Two legs rank units: bleve with BM25 over an identifier-aware
// analyzer (names boosted over prose), and chromem-go vectors (one
// collection per component) from a pluggable [Embedder] whose ID and
// dimension are pinned in the index manifest. Unless a query names
// components, the lexical leg searches S, E and M (implementations live in
// a second bleve index, scored with the same BM25 statistics) and the
// vector leg S and M. [Index.Search] runs the legs concurrently and fuses them
// with weighted reciprocal rank fusion per API, and an API named exactly in
// the query ranks first. The published baseline (docs/protocol.md §6:
// 512-word windows of a rendered condition, dense top-5) is the Paper
// retriever, so every figure can be compared in one program; a bare
// section number (§6) in this package's comments refers to
// docs/protocol.md, and docs/retrieval.md holds the measured figures.
//
// An index directory holds generations; [Build] and [Add] write a new one
// and switch to it atomically, so open readers are never broken and a
// failed build leaves the last good index live. [Open] returns a read-only
// [Index] that is safe for concurrent searches.
package index
