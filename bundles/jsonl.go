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

// bundleLine is one line of a bundles file: the bundle, and which keys of
// the records of other files the line has.
type bundleLine struct {
	Bundle
	keys lineKeys
}

// lineKeys records which keys of the records of other JSONL files a line
// has, whatever their values, to name the file a misplaced line comes from.
type lineKeys struct {
	TaskID      present `json:"task_id"`      // tasks, expected calls, predictions, results
	TestHarness present `json:"test_harness"` // tasks
	Samples     present `json:"samples"`      // predictions
	Signature   present `json:"signature"`    // candidates
	Docstring   present `json:"docstring"`    // candidates
	SName       present `json:"s_name"`       // bundles
	SParam      present `json:"s_param"`      // bundles
	Description present `json:"description"`  // tasks, prompt inputs
}

// present records that a key is there, whatever its value.
type present bool

func (p *present) UnmarshalJSON([]byte) error { *p = true; return nil }

// looksLike returns the clause naming the keys the line has and the file
// such a line belongs to ("it has task_id and samples, as a line of
// predictions.jsonl has"), with a hint where one helps; "" when the keys
// name no file.
func (k lineKeys) looksLike() string {
	switch {
	case bool(k.TaskID && k.TestHarness):
		return "it has task_id and test_harness, as a line of a task pool's tasks.jsonl has; pass the pool with --tasks and its bundles.jsonl with --bundles"
	case bool(k.TaskID && k.Samples):
		return "it has task_id and samples, as a line of predictions.jsonl has"
	case bool(k.TaskID):
		return "it has task_id, as the lines of a task pool's files (tasks.jsonl, expected_calls.jsonl, results.jsonl) have"
	case bool(k.Signature && k.Docstring):
		return "it has signature and docstring, as a line of a candidates file (novelapi discover's output) has; extract its bundles with novelapi extract --candidates FILE"
	case bool(k.SName && k.SParam):
		return "it has s_name and s_param, as a line of bundles.jsonl has; pass the bundles with --bundles"
	}
	return ""
}

func (l *bundleLine) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, &l.Bundle); err != nil {
		return err
	}
	if err := json.Unmarshal(data, &l.keys); err != nil {
		return err
	}
	const what = "not a bundle: "
	if l.keys.TaskID || l.keys.Signature && l.keys.Docstring {
		return errors.New(what + l.keys.looksLike())
	}
	if l.APIName == "" {
		return errors.New(what + "it has no api_name")
	}
	return nil
}

// ReadPromptInputs reads a JSON or JSONL file of task records to render
// prompts from (description and context_code, docs/protocol.md §2.3), see
// [jsonl.Read]. A line without a description (a bundle, a prediction, a
// candidate) is a *[jsonl.ParseError] naming the file, the line and the
// file the line looks like it came from: rendered, it would leave the
// prompt's "# Task:" empty.
func ReadPromptInputs(path string, opts jsonl.ReadOptions) ([]PromptInput, jsonl.ReadStats, error) {
	recs, st, err := jsonl.Read[promptLine](path, opts)
	ts := make([]PromptInput, len(recs))
	for i := range recs {
		ts[i] = recs[i].PromptInput
	}
	return ts, st, err
}

// promptLine is one line of a file of prompt inputs.
type promptLine struct{ PromptInput }

func (l *promptLine) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, &l.PromptInput); err != nil {
		return err
	}
	var k lineKeys
	if err := json.Unmarshal(data, &k); err != nil {
		return err
	}
	if k.Description {
		return nil
	}
	msg := "not a task: it has no description"
	if like := k.looksLike(); like != "" {
		msg += "; " + like
	}
	return errors.New(msg)
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
