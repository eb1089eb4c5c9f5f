package evalharness

import "github.com/novelapi/novelapi/llm"

// JudgeConfig configures the optional LLM judge of protocol §5.2, reached
// through an OpenAI-compatible endpoint.
type JudgeConfig struct {
	// Client talks to the endpoint (required).
	Client *llm.Client
	// MaxTokens is the completion token budget; 0 means 200 + 4096 (§5.2).
	MaxTokens int
}
