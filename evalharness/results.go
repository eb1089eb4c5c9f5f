package evalharness

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/novelapi/novelapi/internal/atomicfile"
	"github.com/novelapi/novelapi/pool"
)

// A Summary is summary.json: the protocol's fields (n_tasks, pass_at_1,
// pass_at_5, labels; docs/protocol.md §1.8) flattened from the
// embedded Metrics, followed by novelapi's extras and breakdowns.
type Summary struct {
	Metrics
	// PassAt5 is the mean pass@5, nil unless every scored task has ≥5 samples.
	PassAt5 *float64 `json:"pass_at_5"`
	// Note explains pass_at_1 next to pass_at_k_unbiased in the file itself.
	Note string `json:"note"`
	// Denominator says, with this run's counts, over which tasks pass@k,
	// exec@k and the rates are taken ([Denominator]).
	Denominator string `json:"denominator"`
	Breakdowns
	// EvaluatorVersion copies eval_meta.json's evaluator_version.
	EvaluatorVersion string `json:"evaluator_version,omitempty"`
	// Shards lists the shard specs merged into this summary ("0/4", ...);
	// empty for an unsharded run.
	Shards []string `json:"shards,omitempty"`
}

// SummaryNote is Summary.Note.
const SummaryNote = "pass_at_1 is the greedy sample (samples[0]) only (protocol §1.8); pass_at_k_unbiased[k] is the mean unbiased estimator 1-C(n-c,k)/C(n,k) over all n samples of each task, so its \"1\" is the per-sample solve rate; statuses count the greedy samples' harness statuses; no_prediction tasks count as failures, except in HumanEval-style pools, whose tasks without a prediction are missing and in no rate (see denominator)"

// Denominator states over which tasks the rates of m are taken: the
// n_tasks scored tasks, which hold the tasks without a prediction scored
// as failures (no_prediction; protocol §1.8) and leave out the tasks of
// HumanEval-style pools without a prediction (missing, as openai/human-eval's
// evaluate_functional_correctness averages pass@k over the problems with a
// sample) and those with an infrastructure error (docs/sandbox.md §2).
func Denominator(m Metrics) string {
	s := fmt.Sprintf("pass@k, exec@k and the rates are over the %d scored tasks (n_tasks)", m.N)
	if m.NoPrediction > 0 {
		s += fmt.Sprintf(", which include %d tasks without a prediction scored as failures (no_prediction, protocol §1.8)", m.NoPrediction)
	}
	if m.Missing > 0 {
		s += fmt.Sprintf("; %d tasks of HumanEval-style pools without a prediction are missing (missing_tasks), not failures, and left out, as openai/human-eval averages pass@k over the problems with a sample", m.Missing)
	}
	if len(m.InfraErrors) > 0 {
		s += fmt.Sprintf("; %d tasks with an infrastructure error are left out (infra_errors)", len(m.InfraErrors))
	}
	return s
}

// Summarize computes the Summary of results.
func Summarize(results []pool.TaskResult, evaluatorVersion string) Summary {
	m := Compute(results)
	s := Summary{Metrics: m, Breakdowns: ComputeBreakdowns(results), EvaluatorVersion: evaluatorVersion, Note: SummaryNote, Denominator: Denominator(m)}
	if v, ok := s.PassAtK["5"]; ok {
		s.PassAt5 = &v
	}
	return s
}

// EvalMeta is eval_meta.json (docs/protocol.md §1.8) plus novelapi's
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
	// Taxonomy is how failures were labelled (TaxonomyRuntime,
	// TaxonomyProtocol; "" for runs before the choice existed), Judge the
	// judge's model ("" without one; docs/protocol.md §5.2).
	Taxonomy string `json:"taxonomy,omitempty"`
	Judge    string `json:"judge,omitempty"`
}

// sameEvaluation reports whether two metas describe the same scoring.
func (m EvalMeta) sameEvaluation(o EvalMeta) bool {
	return m.EvaluatorVersion == o.EvaluatorVersion && m.ClassifyFailures == o.ClassifyFailures &&
		m.PassAt5 == o.PassAt5 && m.Condition == o.Condition && m.Shard == o.Shard &&
		m.Taxonomy == o.Taxonomy && m.Judge == o.Judge
}

// EvaluatorVersion returns 16 hex digits of sha256 over parts, each
// length-prefixed, in the spirit of the protocol's evaluator_version
// (docs/protocol.md §1.8).
func EvaluatorVersion(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

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
func (rw *resultsWriter) Append(r pool.TaskResult) error {
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
func writeResults(path string, results []pool.TaskResult) error {
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

// A NothingJudgedError reports a run in which no predicted task could be
// judged: every one hit an infrastructure error (docs/sandbox.md §2), so
// the run's scores mean nothing. Scripts and agents must see it fail.
type NothingJudgedError struct {
	Dir        string // the run directory; a rerun into it retries the tasks
	Tasks      int    // the predicted tasks, all infrastructure errors
	FirstTask  string // the first of them in results.jsonl ("" if unreadable)
	FirstError string // its error
}

func (e *NothingJudgedError) Error() string {
	first := ""
	if e.FirstTask != "" {
		first = fmt.Sprintf("; %s: %s", e.FirstTask, e.FirstError)
	}
	return fmt.Sprintf("no task could be judged: all %d predicted tasks hit infrastructure errors%s (a rerun into %s retries them)", e.Tasks, first, e.Dir)
}

// NothingJudged returns a *NothingJudgedError when the run in dir, whose
// summary is s, judged no predicted task and had infrastructure errors,
// with the first error read from dir's results.jsonl; nil otherwise.
func NothingJudged(dir string, s Summary) error {
	if s.Judged() > 0 || len(s.InfraErrors) == 0 {
		return nil
	}
	e := &NothingJudgedError{Dir: dir, Tasks: len(s.InfraErrors)}
	if rs, _, err := pool.ReadResults(filepath.Join(dir, pool.ResultsFile)); err == nil {
		for _, r := range rs {
			if r.InfraError() {
				e.FirstTask, e.FirstError = r.TaskID, r.Error
				break
			}
		}
	}
	return e
}

// ReadSummary reads dir/summary.json.
func ReadSummary(dir string) (Summary, error) {
	var s Summary
	err := readJSON(filepath.Join(dir, pool.SummaryFile), &s)
	return s, err
}

// ReadMeta reads dir/eval_meta.json.
func ReadMeta(dir string) (EvalMeta, error) {
	var m EvalMeta
	err := readJSON(filepath.Join(dir, pool.MetaFile), &m)
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
