package evalharness

import (
	"net/http"
	"time"
)

// JudgeConfig configures the optional LLM judge of protocol §5.2, reached
// over the OpenAI-compatible chat completions API.
type JudgeConfig struct {
	// BaseURL is the API root, e.g. "http://127.0.0.1:8000/v1"; the judge
	// POSTs to BaseURL + "/chat/completions".
	BaseURL string
	Model   string
	APIKey  string // sent as a Bearer token when non-empty
	// Timeout bounds one request; 0 means 60 s.
	Timeout time.Duration
	// MaxTokens is max_completion_tokens; 0 means 200 + 4096 (§5.2).
	MaxTokens int
	// Client is the HTTP client; nil means a client with Timeout.
	Client *http.Client
}
