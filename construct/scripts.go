package construct

import _ "embed"

// taskgenPy is the in-sandbox half of the offline task builder: it splits
// an example at the target call, runs the reference twice and under a null
// stub, and keeps the assertions that separate them.
//
//go:embed py/taskgen.py
var taskgenPy []byte
