package bundles

// Similarity exposes similarity to the black-box tests.
var Similarity = similarity
