package evalharness

import "time"

// A Verdict is the harness's decision on one completion.
//
// Passed follows the protocol (§4.3): the script exited 0 within its
// timeout, and novelapi adds that the runner's records are complete (a
// "done" record with the run's nonce, docs/sandbox.md P6). Label, Rationale,
// ExceptionType and Error fill pool.TaskResult (§1.8).
type Verdict struct {
	Passed bool `json:"passed"`
	// Label is [pool.LabelPass] or one of [pool.Labels]; "" only when labels are off.
	Label string `json:"label"`
	// Rule names the rule that decided Label, e.g. "protocol:5.2a",
	// "novelapi:target-typeerror", "judge", "judge-fallback".
	Rule      string `json:"rule"`
	Rationale string `json:"rationale"` // ≤ 240 chars
	// ExceptionType is "Timeout", the last XxxError/Exception/Warning/Interrupt
	// line name of stderr (§4.7), or "".
	ExceptionType string `json:"exception_type"`
	// Error is the last 500 chars of the (4,096-char) stderr; "" when passed.
	Error string `json:"error"`
	// Status is the docs/sandbox.md §4.1 verdict (Status* constants).
	Status string `json:"status"`
	// Executed reports that the completion ran without raising (the setup,
	// context and completion finished), whatever the test said: exec@k.
	Executed bool `json:"executed"`
	// TargetCalled reports that the completion called the target at least
	// once after the context code (the monitor's count; see SpyCalls for
	// entry-point-scoped tasks).
	TargetCalled bool `json:"target_called"`
	// SpyCalls is the number of target calls made by the completion (for
	// [pool.SpyScopeEntryPoint] tasks: inside its entry point, up to the end
	// of the test).
	SpyCalls int `json:"spy_calls"`
	// CalledAPIs lists the task's targets (api_name, then spy_apis) that the
	// completion called, in that order; nil when the spy is off.
	CalledAPIs []string `json:"called_apis,omitempty"`
	// SpyOff reports that the task ran without the target-API monitor
	// (spy_required false): Passed means the tests passed, and TargetCalled
	// is not measured.
	SpyOff bool `json:"spy_off,omitempty"`
	// NonexistentCalls counts attribute or import look-ups of names that do
	// not exist in the library version (AttributeError/ImportError naming the
	// target's package), the PriCoder non-existent-call measure.
	NonexistentCalls int `json:"nonexistent_calls"`
	// SignatureErrors counts target calls whose arguments the target's
	// signature rejected (bind failure or TypeError at the call site).
	SignatureErrors int `json:"signature_errors"`
	// TargetRaised reports that the failure's exception left a call of the
	// target (the spy's note, docs/protocol.md §4.4).
	TargetRaised bool `json:"target_raised,omitempty"`
	// Retried reports that the run timed out once and was re-run (§4.6).
	Retried bool `json:"retried"`
	// Wall is the wall time of the final run.
	Wall time.Duration `json:"wall_ns"`
	// Code is the extracted completion (§3) that was run: for a task
	// that continues its prompt ([pool.Task.ContinuesPrompt]), joined to
	// the prompt's part after the context and, for a renamed pool,
	// translated back ([pool.Task.Keywords]).
	Code string `json:"code"`
	// Written is, for a task that continues its prompt, the completion as
	// extracted, or the response as written when it continued the prompt,
	// before the join and the translation; "" for other tasks.
	Written string `json:"written,omitempty"`
	// Joined says how a completion of a task that continues its prompt
	// was joined to it (docs/importers.md "Joining a completion"):
	// JoinedRepeats, JoinedContinues, or "" (in place of the masked
	// region, as for any task).
	Joined string `json:"joined,omitempty"`
	// Unrenamed is the name of the real library that made a renamed pool's
	// translation "error!" (the completion names it, and the renamed
	// library has no such name); "" otherwise.
	Unrenamed string `json:"unrenamed,omitempty"`
	// Signal names the signal that ended the run when Status is CRASH or
	// RESOURCE_LIMIT ("segmentation fault (signal 11)": the sandbox's name,
	// with the number when the completion's process died of it); "" otherwise.
	Signal string `json:"signal,omitempty"`
	// InfraError describes a sandbox failure or a defect of the task when
	// Status is INFRA_ERROR.
	InfraError string `json:"infra_error,omitempty"`
	// TaskDefect reports an INFRA_ERROR caused by the task itself (its
	// setup, test or spy; taskDefect), which a retry cannot change.
	TaskDefect bool `json:"task_defect,omitempty"`
}
