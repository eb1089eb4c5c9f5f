package evalharness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// runnerJob is the job of one run of py/runner.py. It goes to the runner
// on stdin in two frames: the public part, which the candidate process
// (the one that runs the completion) receives, and Secret, which only the
// judge process reads (docs/threat-model.md §2).
type runnerJob struct {
	Setup          string          `json:"setup"`
	Plan           *extractionPlan `json:"plan"` // nil: Code is the completion
	Code           string          `json:"code"`
	RandomizeSeeds bool            `json:"randomize_seeds"`
	// EntryPoint, when set, names the completion's function whose target
	// calls made while the test calls it count as the completion's
	// (pool.Task.SpyScope pool.SpyScopeEntryPoint); the runner reports them
	// in a spy record of phase "entry".
	EntryPoint string `json:"entry_point,omitempty"`
	// JudgeSetup is what the judge runs before the test: the import line
	// [A] and the hidden setup [A'] (protocol §4.1), trusted parts that
	// change modules the test may use.
	JudgeSetup string `json:"judge_setup,omitempty"`
	// Bootstrap is the library's bootstrap (bundles.Bootstrap), run before
	// the modules of Preimport; Setup and JudgeSetup start with it too.
	Bootstrap string `json:"bootstrap,omitempty"`
	// Preimport lists modules to import before the candidate is forked
	// (the import line's module, then its shorter prefixes); the first
	// that imports ends the list.
	Preimport []string `json:"preimport,omitempty"`
	// Targets are the monitored targets (the judge binds the monitor's
	// names from the spy's report); nil when the task has no spy.
	Targets []string `json:"targets,omitempty"`
	// Tops are the top-level packages whose classes the completion's
	// values may have, besides numpy, pandas and scipy (py/plaindata.py).
	Tops []string `json:"tops,omitempty"`
	// Refs are the paths a value may reference as the real object (the
	// targets and the monitor's aliases: a spy crosses as its target).
	Refs []string `json:"refs,omitempty"`
	// Join, when set, joins the completion to the prompt it continues
	// and translates a renamed pool's completion back before it runs
	// (joinOf); nil runs the extracted completion in place of the masked
	// region.
	Join *joinJob `json:"join,omitempty"`

	Secret secretJob `json:"-"`
}

// secretJob is the part of a runnerJob that only the judge reads.
type secretJob struct {
	Test          string  `json:"test"`           // execution_test with the call-record check spliced in ("" = none)
	ExecutionTest string  `json:"execution_test"` // for CLI argv inference
	InferArgv     bool    `json:"infer_argv"`
	NormaliseTest bool    `json:"normalise_test"`
	JudgeLeaf     *string `json:"judge_leaf"` // non-nil: compute the judge's AST fields
	Reference     string  `json:"reference"`
	// EntryCheck, when set with EntryPoint, is the target named in the
	// failure "solution did not call target API <EntryCheck>" raised after
	// a passing test whose entry point made no target call.
	EntryCheck string `json:"entry_check,omitempty"`
}

// stdin returns the runner's standard input: the public frame, the nonce
// line and the secret frame, a frame being a decimal length, a newline
// and that many bytes of JSON.
func (j runnerJob) stdin(nonce string) ([]byte, error) {
	pub, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	sec, err := json.Marshal(j.Secret)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d\n", len(pub))
	b.Write(pub)
	b.WriteString(nonce + "\n")
	fmt.Fprintf(&b, "%d\n", len(sec))
	b.Write(sec)
	return b.Bytes(), nil
}

// The runner's records (py/runner.py), one JSON object per line of
// /out/records.jsonl.
type (
	excRecord struct {
		Phase     string          `json:"phase"` // compile, setup, solution, test, all
		Exc       string          `json:"exc"`
		ExcModule string          `json:"exc_module"`
		Msg       string          `json:"msg"`
		Frames    []frameRecord   `json:"frames"`
		Name      *string         `json:"name"`
		NameFrom  *string         `json:"name_from"`
		ObjModule *string         `json:"obj_module"`
		ObjName   *string         `json:"obj_name"`
		Target    *raisedByTarget `json:"target"`
		// Remote marks a test-phase exception raised by the completion's
		// code while the test called it (the judge re-raised it).
		Remote bool `json:"remote"`
	}
	frameRecord struct {
		File   string `json:"file"`
		Func   string `json:"func"`
		Line   int    `json:"line"`
		Module string `json:"module"`
	}
	// raisedByTarget describes an exception that left a target call (the
	// spy's note, novelapi extension of §4.4).
	raisedByTarget struct {
		Exc       string   `json:"exc"`
		Msg       string   `json:"msg"`
		Depth     int      `json:"depth"`   // frames below the spy; 0: raised at the call site
		Modules   []string `json:"modules"` // module names of those frames
		Bind      *bool    `json:"bind"`    // the target's signature accepted the arguments
		Recording bool     `json:"recording"`
		Chained   bool     `json:"chained"` // the final exception was raised while handling it
		Causes    []string `json:"causes"`  // "Type: message" of its __cause__/__context__ chain
	}
	spyRecord struct {
		Phase     string            `json:"phase"` // solution, setup, entry
		Installed bool              `json:"installed"`
		Count     int               `json:"count"`
		Calls     []json.RawMessage `json:"calls"`
		// APIs counts the calls per target name (novelapi extension).
		APIs map[string]int `json:"apis"`
		// Unattributed marks an entry record whose count could not be
		// limited to the entry point (the script ran as one unit).
		Unattributed bool `json:"unattributed"`
		// Private marks a record of the spy's own hook (the monitor ran and
		// registered); a record without it says no monitor ran.
		Private bool `json:"private"`
		// Failed says, per target, why the monitor could not spy it.
		Failed map[string]string `json:"failed"`
	}
)

// runRecords is what the runner reported for one run.
type runRecords struct {
	Started   bool
	Extracted bool
	Code      string // the completion that ran (translated back for a renamed pool)
	// Written is, for a task that continues its prompt, the completion
	// as extracted, or as written when it continued the prompt, before
	// the join and a renamed pool's translation ("" for other tasks);
	// Unrenamed is the original name that made the translation "error!",
	// or ""; Joined says how the completion was joined (joinJob: "repeats",
	// "continues", "" in place of the masked region).
	Written, Unrenamed, Joined string
	Phases                     []string // completed phases in order
	Exception                  *excRecord
	Spy                        *spyRecord // the state after the completion (or at its exception)
	// EntrySpy counts the target calls made inside the entry point up to the
	// end of the test (or its exception); nil unless the job set EntryPoint.
	EntrySpy *spyRecord
	Done     bool
	DoneOK   bool // done with status "ok"
	Judge    *judgeFields
	// Tamper says why the records cannot be trusted ("" when they can).
	Tamper string
	// CandidateSignal is the signal that ended the completion's process
	// (0: none); the run then exits as if killed by it.
	CandidateSignal int
	// HarnessError says why the judge could not judge (a defect of the
	// task or of the harness, never of the completion); "" normally.
	HarnessError string
	// Layout places the script's parts in the flat script (traceback.go).
	Layout []scriptPart
}

func (r *runRecords) phaseDone(name string) bool {
	for _, p := range r.Phases {
		if p == name || p == "all" {
			return true
		}
	}
	return false
}

// parseRecords checks and decodes the runner's records (docs/sandbox.md P6):
// every record carries the nonce, "start" comes first, exactly one "done"
// comes last and counts the records before it.
func parseRecords(data []byte, nonce string) runRecords {
	var r runRecords
	n := 0
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var head struct {
			Type   string       `json:"type"`
			Nonce  string       `json:"nonce"`
			Status string       `json:"status"`
			N      int          `json:"n"`
			Name   string       `json:"name"`
			Code   string       `json:"code"`
			Judge  *judgeFields `json:"judge"`
			// Written, Unrenamed, Joined: the join to the prompt.
			Written   string `json:"written"`
			Unrenamed string `json:"unrenamed"`
			Joined    string `json:"joined"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			r.Tamper = fmt.Sprintf("malformed record %d", n+1)
			return r
		}
		if head.Nonce != nonce {
			r.Tamper = fmt.Sprintf("record %d has a wrong nonce", n+1)
			return r
		}
		if r.Done {
			r.Tamper = "records after the done record"
			return r
		}
		if n == 0 && head.Type != "start" {
			r.Tamper = "first record is not start"
			return r
		}
		switch head.Type {
		case "start":
			if r.Started {
				r.Tamper = "duplicate start record"
				return r
			}
			r.Started = true
		case "extract":
			r.Extracted, r.Code, r.Judge = true, head.Code, head.Judge
			r.Written, r.Unrenamed, r.Joined = head.Written, head.Unrenamed, head.Joined
		case "phase":
			r.Phases = append(r.Phases, head.Name)
		case "exception":
			e := new(excRecord)
			if err := json.Unmarshal(line, e); err != nil || r.Exception != nil {
				r.Tamper = "bad or duplicate exception record"
				return r
			}
			r.Exception = e
		case "spy":
			s := new(spyRecord)
			if err := json.Unmarshal(line, s); err != nil {
				r.Tamper = "bad spy record"
				return r
			}
			if s.Phase == "entry" {
				r.EntrySpy = s
			} else {
				r.Spy = s
			}
		case "layout":
			var l struct {
				Parts []scriptPart `json:"parts"`
			}
			if err := json.Unmarshal(line, &l); err != nil {
				r.Tamper = "bad layout record"
				return r
			}
			r.Layout = l.Parts
		case "tamper":
			// The runner saw the completion write the monitor's state.
			var t struct {
				Reason string `json:"reason"`
			}
			json.Unmarshal(line, &t)
			r.Tamper = "the runner reported tampering: " + t.Reason
		case "candidate":
			var c struct {
				Signal int `json:"signal"`
			}
			json.Unmarshal(line, &c)
			r.CandidateSignal = c.Signal
		case "harness_error":
			var h struct {
				Msg string `json:"msg"`
			}
			json.Unmarshal(line, &h)
			r.HarnessError = h.Msg
		case "done":
			if head.N != n {
				r.Tamper = fmt.Sprintf("done record counts %d records, saw %d", head.N, n)
				return r
			}
			r.Done, r.DoneOK = true, head.Status == "ok"
		default:
			r.Tamper = fmt.Sprintf("unknown record type %q", head.Type)
			return r
		}
		n++
	}
	if !r.Started {
		r.Tamper = "no records"
	} else if !r.Done && r.Tamper == "" {
		r.Tamper = "no done record"
	}
	return r
}

// runOutcome is one sandbox run of the runner.
type runOutcome struct {
	Res     sandbox.Result
	Recs    runRecords
	Retried bool
	// SpyOptional makes a spy that could not be installed a fact of the
	// run (check_code) rather than a defect of the task (taskDefect).
	SpyOptional bool
	// Plan and Code are the job's completion (runnerJob.Plan, .Code), for
	// a run whose records were lost (lostCode).
	Plan *extractionPlan
	Code string
}

// facts is what the classifier knows of the run (stderr as kept), the
// code standing in for lost records included.
func (o *runOutcome) facts(task *pool.Task, stderr string) *failureFacts {
	f := &failureFacts{Task: task, Code: o.Recs.Code, Stderr: stderr, TimedOut: o.Res.TimedOut, Recs: &o.Recs}
	if !o.Recs.Extracted {
		f.CodeLost = true
		f.Code, f.CodeEmpty = o.lostCode()
	}
	return f
}

// lostCode stands in for the extracted code of a run whose records were
// lost (the sandbox's wall limit kills the runner before it writes them):
// the code itself when the job gave it, else the plan's choice with every
// candidate taken to parse (a run that timed out got past compiling).
// empty is true only when every candidate of the plan is an empty stub,
// so the response holds no code whichever the runner chose.
func (o *runOutcome) lostCode() (code string, empty bool) {
	if o.Plan == nil {
		return o.Code, emptyStub(o.Code)
	}
	empty = true
	for _, c := range o.Plan.candidates() {
		if !emptyStub(postprocess(c)) {
			empty = false
		}
	}
	return o.Plan.Select(func(string) bool { return true }), empty
}

// runnerArgv runs the trusted runner.
var runnerArgv = []string{"python3", "-I", "-B", "/job/runner.py"}

// execJob runs job once in env with the wall limit timeout.
func (h *Harness) execJob(ctx context.Context, env *sandbox.Environment, job runnerJob, timeout time.Duration) (runOutcome, error) {
	var nb [16]byte
	rand.Read(nb[:])
	nonce := hex.EncodeToString(nb[:])
	stdin, err := job.stdin(nonce)
	if err != nil {
		return runOutcome{}, err
	}
	spec := sandbox.Spec{
		Environment: env,
		Files: []sandbox.File{
			{Path: "runner.py", Data: []byte(pyFile("runner.py"))},
			{Path: "plaindata.py", Data: []byte(pyFile("plaindata.py"))},
		},
		Argv:   runnerArgv,
		Stdin:  stdin,
		Limits: sandbox.Limits{Wall: timeout, Memory: h.cfg.Memory},
	}
	res, err := h.cfg.Runner.Run(ctx, spec)
	if err != nil {
		if res.InfraError == "" {
			res.InfraError = err.Error()
		}
		return runOutcome{Res: res}, fmt.Errorf("sandbox run: %w", err)
	}
	return runOutcome{Res: res, Recs: parseRecords(res.Outputs["records.jsonl"], nonce), Plan: job.Plan, Code: job.Code}, nil
}

// execWithRetry runs job and, after a timeout, once more, serialised
// through the harness's retry lock (docs/protocol.md §4.6). The second result is
// final.
func (h *Harness) execWithRetry(ctx context.Context, env *sandbox.Environment, job runnerJob, timeout time.Duration) (runOutcome, error) {
	out, err := h.execJob(ctx, env, job, timeout)
	if err != nil || !out.Res.TimedOut || ctx.Err() != nil {
		return out, err
	}
	h.retryMu.Lock()
	defer h.retryMu.Unlock()
	out, err = h.execJob(ctx, env, job, timeout)
	out.Retried = true
	return out, err
}
