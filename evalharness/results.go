package evalharness

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/novelapi/novelapi/internal/atomicfile"
)

// File names of a run directory (novelapibench-protocol §1.8).
const (
	ResultsFile  = "results.jsonl"
	SummaryFile  = "summary.json"
	MetaFile     = "eval_meta.json"
	ReportMDFile = "report.md"
	ReportHTML   = "report.html"
)

// A TaskResult is one line of results.jsonl: the protocol's TaskResult
// (novelapibench-protocol §1.8, built as §4.7) for the greedy sample
// samples[0], followed by novelapi's extras. Files written by the published
// benchmark decode into it (the extras stay zero).
type TaskResult struct {
	TaskID     string `json:"task_id"`
	APIName    string `json:"api_name"`
	Library    string `json:"library"`
	Domain     string `json:"domain"`
	Difficulty string `json:"difficulty"`
	Passed     bool   `json:"passed"`
	// Label is "Pass", one of the six failure labels (protocol §5.1), or ""
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

	// Condition is the knowledge condition (protocol §2.1) or cell name.
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
}

// A SampleVerdict is the compact verdict of one sample of a task.
type SampleVerdict struct {
	Passed           bool     `json:"passed"`
	Label            string   `json:"label"`
	Rule             string   `json:"rule,omitempty"`
	Status           string   `json:"status"`
	ExceptionType    string   `json:"exception_type,omitempty"`
	Executed         bool     `json:"executed"`
	TargetCalled     bool     `json:"target_called"`
	CalledAPIs       []string `json:"called_apis,omitempty"`
	NonexistentCalls int      `json:"nonexistent_calls,omitempty"`
	SignatureErrors  int      `json:"signature_errors,omitempty"`
	WallMS           int64    `json:"wall_ms"`
}

// InfraError reports whether the greedy sample hit an infrastructure error,
// which excludes the task from n.
func (r TaskResult) InfraError() bool { return r.Status == StatusInfraError }

// A Summary is summary.json: the protocol's fields (n_tasks, pass_at_1,
// pass_at_5, labels; novelapibench-protocol §1.8) flattened from the
// embedded Metrics, followed by novelapi's extras and breakdowns.
type Summary struct {
	Metrics
	// PassAt5 is the mean pass@5, nil unless every scored task has ≥5 samples.
	PassAt5 *float64 `json:"pass_at_5"`
	// Note explains pass_at_1 next to pass_at_k_unbiased in the file itself.
	Note string `json:"note"`
	Breakdowns
	// EvaluatorVersion copies eval_meta.json's evaluator_version.
	EvaluatorVersion string `json:"evaluator_version,omitempty"`
	// Shards lists the shard specs merged into this summary ("0/4", ...);
	// empty for an unsharded run.
	Shards []string `json:"shards,omitempty"`
}

// SummaryNote is Summary.Note.
const SummaryNote = "pass_at_1 is the greedy sample (samples[0]) only (protocol §1.8); pass_at_k_unbiased[k] is the mean unbiased estimator 1-C(n-c,k)/C(n,k) over all n samples of each task, so its \"1\" is the per-sample solve rate; statuses count the greedy samples' harness statuses; no_prediction tasks count as failures"

// Summarize computes the Summary of results.
func Summarize(results []TaskResult, evaluatorVersion string) Summary {
	s := Summary{Metrics: Compute(results), Breakdowns: ComputeBreakdowns(results), EvaluatorVersion: evaluatorVersion, Note: SummaryNote}
	if v, ok := s.PassAtK["5"]; ok {
		s.PassAt5 = &v
	}
	return s
}

// EvalMeta is eval_meta.json (novelapibench-protocol §1.8) plus novelapi's
// extras. A rerun into a directory whose meta differs in EvaluatorVersion,
// ClassifyFailures or PassAt5 refuses to resume ([ErrMetaMismatch]).
type EvalMeta struct {
	// EvaluatorVersion is 16 hex digits identifying the evaluator and its
	// reference data.
	EvaluatorVersion string `json:"evaluator_version"`
	ClassifyFailures bool   `json:"classify_failures"`
	PassAt5          bool   `json:"pass_at_5"`
	// novelapi extras.
	Condition   string `json:"condition,omitempty"`
	Shard       string `json:"shard,omitempty"` // "i/n", empty when unsharded
	Backend     string `json:"backend,omitempty"`
	Tasks       string `json:"tasks,omitempty"`
	Predictions string `json:"predictions,omitempty"`
	// Source is the knowledge source of the run: SourceOracle,
	// SourceRetrieved or "" (unknown; sweeps infer it from the path).
	Source string `json:"source,omitempty"`
}

// sameEvaluation reports whether two metas describe the same scoring.
func (m EvalMeta) sameEvaluation(o EvalMeta) bool {
	return m.EvaluatorVersion == o.EvaluatorVersion && m.ClassifyFailures == o.ClassifyFailures &&
		m.PassAt5 == o.PassAt5 && m.Condition == o.Condition && m.Shard == o.Shard
}

// EvaluatorVersion returns 16 hex digits of sha256 over parts, each
// length-prefixed, in the spirit of the protocol's evaluator_version
// (novelapibench-protocol §1.8).
func EvaluatorVersion(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

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

// resultsWriter appends TaskResults to results.jsonl, one fsynced line each.
type resultsWriter struct {
	f *os.File
	w *bufio.Writer
}

// openResults opens path for appending after truncating it to valid bytes
// (dropping a torn tail).
func openResults(path string, valid int64) (*resultsWriter, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(valid); err != nil {
		f.Close()
		return nil, fmt.Errorf("truncate torn tail of %s: %w", path, err)
	}
	if _, err := f.Seek(valid, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &resultsWriter{f: f, w: bufio.NewWriter(f)}, nil
}

// Append writes r as one line and fsyncs the file.
func (rw *resultsWriter) Append(r TaskResult) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	rw.w.Write(data)
	rw.w.WriteByte('\n')
	if err := rw.w.Flush(); err != nil {
		return err
	}
	return rw.f.Sync()
}

func (rw *resultsWriter) Close() error { return rw.f.Close() }

// writeResults writes all results to path atomically.
func writeResults(path string, results []TaskResult) error {
	var buf bytes.Buffer
	for _, r := range results {
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
}

// ReadSummary reads dir/summary.json.
func ReadSummary(dir string) (Summary, error) {
	var s Summary
	err := readJSON(filepath.Join(dir, SummaryFile), &s)
	return s, err
}

// ReadMeta reads dir/eval_meta.json.
func ReadMeta(dir string) (EvalMeta, error) {
	var m EvalMeta
	err := readJSON(filepath.Join(dir, MetaFile), &m)
	return m, err
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func itoa(k int) string { return strconv.Itoa(k) }
