package bundles

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/novelapi/novelapi/internal/jsonl"
)

// ReadBundles reads a bundles.jsonl file (ours or the published
// benchmark's), see [jsonl.Read]. A line that is no bundle (one without an
// api_name, or a record of another file: a task, a prediction, a
// candidate) is a *[jsonl.ParseError] naming the file, the line
// and the file the line looks like it came from; with opts.SkipBad it is
// skipped and counted.
func ReadBundles(path string, opts jsonl.ReadOptions) ([]Bundle, jsonl.ReadStats, error) {
	recs, st, err := jsonl.Read[bundleLine](path, opts)
	bs := make([]Bundle, len(recs))
	for i := range recs {
		bs[i] = recs[i].Bundle
	}
	return bs, st, err
}

// bundleLine is one line of a bundles file, decoded once: the bundle, and
// whether the line has the keys of the records of other files.
type bundleLine struct {
	Bundle
	TaskID      present `json:"task_id"`      // tasks, expected calls, predictions, results
	TestHarness present `json:"test_harness"` // tasks
	Samples     present `json:"samples"`      // predictions
	Signature   present `json:"signature"`    // candidates
	Docstring   present `json:"docstring"`    // candidates
}

// present records that a key is there, whatever its value.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

func (l *bundleLine) UnmarshalJSON(data []byte) error {
	type plain bundleLine // without this method
	if err := json.Unmarshal(data, (*plain)(l)); err != nil {
		return err
	}
	const what = "not a bundle"
	task := bool(l.TaskID)
	switch {
	case task && bool(l.TestHarness):
		return errors.New(what + ": it has task_id and test_harness, as a line of a task pool's tasks.jsonl has; pass the pool with --tasks and its bundles.jsonl with --bundles")
	case task && bool(l.Samples):
		return errors.New(what + ": it has task_id and samples, as a line of predictions.jsonl has")
	case task:
		return errors.New(what + ": it has task_id, as the lines of a task pool's files (tasks.jsonl, expected_calls.jsonl, results.jsonl) have")
	case bool(l.Signature && l.Docstring):
		return errors.New(what + ": it has signature and docstring, as a line of a candidates file (novelapi discover's output) has; extract its bundles with novelapi extract --candidates FILE")
	case l.APIName == "":
		return errors.New(what + ": it has no api_name")
	}
	return nil
}

// WriteBundles writes bundles atomically to path as bundles.jsonl, in the
// given order, see [jsonl.Write].
func WriteBundles(path string, bs []Bundle) error {
	return jsonl.Write(path, bs)
}

// Find returns the bundle whose api_name is name or, failing that, the
// first one listing name among its aliases, then among its public
// instances (Provenance.Instances: "scipy.stats.triang" finds
// scipy.stats.distributions.triang_gen). A name written with an import
// alias ("np.unstack") is looked up as its library's, the aliases learned
// from the bundles' examples ([LearnAliases]).
// The error wraps [ErrUnknownAPI].
func Find(bs []Bundle, name string) (*Bundle, error) {
	full := LearnAliases(ExampleCode(bs)).Expand(name)
	for i := range bs {
		if bs[i].APIName == name || bs[i].APIName == full {
			return &bs[i], nil
		}
	}
	for i := range bs {
		if slices.Contains(bs[i].Names()[1:], full) {
			return &bs[i], nil
		}
	}
	for i := range bs {
		if slices.Contains(bs[i].PublicInstances(), full) {
			return &bs[i], nil
		}
	}
	return nil, fmt.Errorf("%w: %q (%d bundles)", ErrUnknownAPI, name, len(bs))
}
