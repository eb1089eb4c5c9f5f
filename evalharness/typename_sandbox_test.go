package evalharness

import (
	"testing"

	"github.com/novelapi/novelapi/pool"
)

// The judge's proxy of a library object that crosses as a handle bears its
// type's names (docs/threat-model.md §4): the task built from
// scipy.spatial.transform.RigidTransform.from_translation's docstring
// (sid-wide, scipy 1.17; testdata/typename) asserts
// type(result).__name__ == 'RigidTransform', which plain Python passes and
// the judge failed, so its reference got no call records (reference_failed)
// and C1 dropped it.
func TestRecordExpectedCalls_ProxyTypeNames(t *testing.T) {
	h := newTestHarnessIn(t, "sid-sci")
	tasks, err := pool.LoadTasks("testdata/typename/tasks.jsonl", pool.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tasks[0].Environment = "sid-sci" // sid-wide's scipy is sid-sci's
	ec, err := h.RecordExpectedCalls(t.Context(), tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	if ec.Status != pool.CallsOK || ec.ReferenceSource != "masked_region" || len(ec.Expected) == 0 {
		t.Errorf("call records of %s: status %q from %q, %d records; want ok from masked_region", tasks[0].APIName, ec.Status, ec.ReferenceSource, len(ec.Expected))
	}
}
