package pool

// Failure labels (docs/protocol.md §5.1). LabelPass marks a passing
// completion.
const (
	LabelPass              = "Pass"
	LabelWrongAPISelection = "WrongAPISelection"
	LabelWrongImport       = "WrongImport"
	LabelWrongSyntax       = "WrongSyntax"
	LabelWrongParam        = "WrongParam"
	LabelWrongShapeDtype   = "WrongShapeDtype"
	LabelWrongLogic        = "WrongLogic"
)

// Labels lists the six failure labels in the protocol's order (§5.1).
var Labels = []string{
	LabelWrongAPISelection, LabelWrongImport, LabelWrongSyntax,
	LabelWrongParam, LabelWrongShapeDtype, LabelWrongLogic,
}

// Run statuses, the docs/sandbox.md §4.1 verdict order: the first that applies
// wins. API_MISUSE is not used (call-record mismatches are WRONG_ANSWER).
const (
	StatusPass          = "PASS"
	StatusInfraError    = "INFRA_ERROR"
	StatusTimeout       = "TIMEOUT"
	StatusMemoryLimit   = "MEMORY_LIMIT"
	StatusOutputLimit   = "OUTPUT_LIMIT"
	StatusResourceLimit = "RESOURCE_LIMIT"
	StatusCrash         = "CRASH"
	StatusHarnessTamper = "HARNESS_TAMPER"
	StatusCompileError  = "COMPILE_ERROR"
	StatusAPINotCalled  = "API_NOT_CALLED"
	StatusWrongAnswer   = "WRONG_ANSWER"
	StatusRuntimeError  = "RUNTIME_ERROR"
	// StatusNoPrediction marks a task of the pool that has no prediction
	// (novelapi: [RunConfig].ScoreMissing); it counts as a failure.
	StatusNoPrediction = "NO_PREDICTION"
)

// Novelty types of a target API (docs/protocol.md §1.2 is_modified,
// §8 "newly introduced" vs "signature-modified").
const (
	NoveltyNew      = "new"
	NoveltyModified = "modified"
)
