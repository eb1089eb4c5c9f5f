package evalharness

import (
	"context"
	"errors"
)

// Evaluate extracts the code of one response (§3), runs it with the task's
// test in the task's environment (§4) and classifies a failure (§5).
// expected may be nil only for tasks that do not require the spy; a
// non-"ok" record is refused. The error is non-nil only for infrastructure
// failures (no environment, sandbox unavailable, refused task); a failing
// completion is a Verdict.
func (h *Harness) Evaluate(ctx context.Context, task *Task, expected *ExpectedCalls, response string) (Verdict, error) {
	return Verdict{}, errors.New("evalharness: Evaluate not implemented yet")
}

// CheckCode runs agent code in the library's environment with the spy on
// apiName and reports whether it ran and really called the target.
func (h *Harness) CheckCode(ctx context.Context, code, apiName, library string) (CheckResult, error) {
	return CheckResult{}, errors.New("evalharness: CheckCode not implemented yet")
}
