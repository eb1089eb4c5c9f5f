package construct

import _ "embed"

// taskgenPy is the in-sandbox half of the offline task builder: it splits
// an example at the target call, runs the reference twice and under a null
// stub, and keeps the assertions that separate them.
//
//go:embed py/taskgen.py
var taskgenPy []byte

// llmgenPy is the in-sandbox half of the LLM task generator: it runs the
// reference and the six scenarios and keeps the assertion layers that
// separate the target from null stubs.
//
//go:embed py/llmgen.py
var llmgenPy []byte

// stubsPy is shared by both scripts (resolving the target and replacing it,
// with every alias, by a null stub); it is copied beside them into /job.
//
//go:embed py/stubs.py
var stubsPy []byte
