package construct

import "github.com/novelapi/novelapi/bundles"

// PlanExamples returns the indices, among b's executed examples, of the
// examples BuildTasks tries for b, in order.
func PlanExamples(b *bundles.Bundle, max int) []int { return planJob(b, max).index }
