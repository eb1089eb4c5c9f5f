package pool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// File names of a run directory (docs/protocol.md §1.8).
const (
	ResultsFile  = "results.jsonl"
	SummaryFile  = "summary.json"
	MetaFile     = "eval_meta.json"
	ReportMDFile = "report.md"
	ReportHTML   = "report.html"
)

// A TaskResult is one line of results.jsonl: the protocol's TaskResult
// (docs/protocol.md §1.8, built as §4.7) for the greedy sample
// samples[0], followed by novelapi's extras. Files written by the published
// benchmark decode into it (the extras stay zero).
type TaskResult struct {
	TaskID     string `json:"task_id"`
	APIName    string `json:"api_name"`
	Library    string `json:"library"`
	Domain     string `json:"domain"`
	Difficulty string `json:"difficulty"`
	Passed     bool   `json:"passed"`
	// Label is "Pass", one of the six failure labels (docs/protocol.md §5.1), or ""
	// when failure labels are off.
	Label string `json:"label"`
	// Rationale is ≤240 chars from the judge or a deterministic sentence.
	Rationale string `json:"rationale"`
	// ExceptionType is "Timeout", the last exception line's name, or "".
	ExceptionType string `json:"exception_type"`
	// Error is the last 500 chars of the truncated stderr; "" when passed.
	Error string `json:"error"`
	// PassAt5 is the task's unbiased pass@5 over all its samples, nil when
	// it has fewer than 5 scored samples.
	PassAt5 *float64 `json:"pass_at_5"`

	// novelapi extras.

	// Condition is the knowledge condition (docs/protocol.md §2.1) or cell name.
	Condition string `json:"condition,omitempty"`
	// Novelty is NoveltyNew, NoveltyModified or "" (unknown).
	Novelty string `json:"novelty,omitempty"`
	// Status is the harness's status of the greedy sample; StatusInfraError
	// excludes the task from every metric.
	Status string `json:"status"`
	// Rule names the taxonomy rule that decided Label.
	Rule string `json:"rule,omitempty"`
	// Executed reports whether the greedy sample ran without an exception or
	// timeout (the basis of exec@k).
	Executed bool `json:"executed"`
	// TargetCalled reports whether the greedy sample called the target API.
	TargetCalled bool `json:"target_called"`
	// SpyCalls counts the spy's recorded target calls of the greedy sample.
	SpyCalls int `json:"spy_calls"`
	// NonexistentCalls counts calls to names absent from the library version.
	NonexistentCalls int `json:"nonexistent_calls"`
	// SignatureErrors counts calls rejected by the callee's signature.
	SignatureErrors int `json:"signature_errors"`
	// RequiredAPIs lists the APIs the task's spy watches (api_name, then
	// spy_apis); CalledAPIs those of them the greedy sample called, in the
	// same order. Both empty when the spy is off. Required-API recall counts
	// tasks with more than one required API.
	RequiredAPIs []string `json:"required_apis,omitempty"`
	CalledAPIs   []string `json:"called_apis,omitempty"`
	// SpyOff reports that the task ran without the target-API spy
	// (spy_required false, HumanEval-style pools): passed means the tests
	// passed, and target_called is not measured.
	SpyOff bool `json:"spy_off,omitempty"`
	// Group is the task's dataset group (imported pools; e.g.
	// CodeUpdateArena's package); "" for native tasks.
	Group string `json:"group,omitempty"`
	// SamplesHash is 16 hex digits of sha256 over the evaluated samples of
	// the task's prediction; a resumed run re-evaluates a task whose
	// samples changed.
	SamplesHash string `json:"samples_sha256,omitempty"`
	// Signal names the signal that ended the greedy sample's run when its
	// status is CRASH or RESOURCE_LIMIT ("segmentation fault (signal 11)").
	Signal string `json:"signal,omitempty"`
	// Retried reports a serial retry after a timeout or infra error.
	Retried bool `json:"retried,omitempty"`
	// WallMS is the wall time of the greedy sample's evaluation, ms.
	WallMS int64 `json:"wall_ms"`
	// NSamples and NPassed count the scored samples and the passing ones
	// (n and c of pass@k); NExecuted counts the executed ones.
	NSamples  int `json:"n_samples"`
	NPassed   int `json:"n_passed"`
	NExecuted int `json:"n_executed"`
	// Samples holds one verdict per sample when there is more than one.
	Samples []SampleVerdict `json:"samples,omitempty"`
	// Index is the prediction's 0-based position in predictions.jsonl, the
	// stable index used for sharding and for ordering merged results.
	Index int `json:"index"`
	// Code is the code the greedy sample ran (evalharness.Verdict.Code:
	// the extracted completion, for a task that continues its prompt
	// joined to it and translated back, docs/importers.md "Joining a
	// completion"); Written is what the completion wrote before the join and
	// the translation, Joined how it was joined ("repeats", "continues" or
	// "" in place of the masked region), Unrenamed the real library's name
	// that made a renamed pool's translation "error!". All "" for a task
	// without a prediction.
	Code      string `json:"code,omitempty"`
	Written   string `json:"written,omitempty"`
	Joined    string `json:"joined,omitempty"`
	Unrenamed string `json:"unrenamed,omitempty"`
	// Missing marks a task of a pool that follows the HumanEval convention
	// ([Task.HumanEvalConvention]) for which the predictions had none
	// (status StatusNoPrediction, no label): openai/human-eval's
	// evaluate_functional_correctness averages pass@k over the problems
	// with a sample, so the task is counted as missing and enters no
	// metric, not as a failure.
	Missing bool `json:"missing,omitempty"`
}

// A SampleVerdict is the compact verdict of one sample of a task.
type SampleVerdict struct {
	Passed           bool     `json:"passed"`
	Label            string   `json:"label"`
	Rule             string   `json:"rule,omitempty"`
	Status           string   `json:"status"`
	ExceptionType    string   `json:"exception_type,omitempty"`
	Signal           string   `json:"signal,omitempty"`
	Executed         bool     `json:"executed"`
	TargetCalled     bool     `json:"target_called"`
	CalledAPIs       []string `json:"called_apis,omitempty"`
	NonexistentCalls int      `json:"nonexistent_calls,omitempty"`
	SignatureErrors  int      `json:"signature_errors,omitempty"`
	WallMS           int64    `json:"wall_ms"`
}

// InfraError reports whether the greedy sample hit an infrastructure error,
// which excludes the task from n. A [TaskResult.Missing] task is also out
// of n.
func (r TaskResult) InfraError() bool { return r.Status == StatusInfraError }

// ReadResults reads a results.jsonl file. A missing file yields no results.
// A torn last line (no trailing newline, or not valid JSON, as left by a
// killed run) is ignored and reported through valid, the byte length of the
// intact prefix; any other malformed line is an error naming the file and
// line.
func ReadResults(path string) (results []TaskResult, valid int64, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	line := 0
	for len(data[valid:]) > 0 {
		rest := data[valid:]
		line++
		nl := bytes.IndexByte(rest, '\n')
		last := nl < 0
		raw := rest
		if !last {
			raw = rest[:nl]
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if last {
				break
			}
			valid += int64(nl + 1)
			continue
		}
		var r TaskResult
		if jerr := json.Unmarshal(raw, &r); jerr != nil || r.TaskID == "" {
			if jerr == nil {
				jerr = errors.New("missing task_id")
			}
			if last || isLastLine(rest[nl+1:]) {
				break // torn tail
			}
			return nil, 0, fmt.Errorf("%s:%d: %w", path, line, jerr)
		}
		if last {
			break // a complete record without its newline is still torn
		}
		results = append(results, r)
		valid += int64(nl + 1)
	}
	return results, valid, nil
}

// isLastLine reports whether rest holds nothing but whitespace.
func isLastLine(rest []byte) bool { return len(bytes.TrimSpace(rest)) == 0 }

// ScanResults reads a results.jsonl file as a resuming run does: it keeps
// every line that is a complete record and reports the 1-based numbers of
// the lines that are not (torn by a kill, garbled, without a task_id, or a
// last line without its newline), wherever they are. A missing file yields
// nothing. Only a read error is an error.
func ScanResults(path string) (results []TaskResult, torn []int, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	line := 0
	for len(data) > 0 {
		line++
		raw, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var r TaskResult
		if !complete || json.Unmarshal(raw, &r) != nil || r.TaskID == "" {
			torn = append(torn, line)
			continue
		}
		results = append(results, r)
	}
	return results, torn, nil
}
