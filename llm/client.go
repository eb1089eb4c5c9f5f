// Package llm is a small client for OpenAI-compatible chat-completion
// endpoints (vLLM, Ollama, llama.cpp, hosted services). novelapi uses it for
// generation, the optional LLM judge and model-written mechanism prose. No
// model is needed to test anything: tests serve the same wire format from an
// httptest server.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// ErrNoEndpoint reports a call on a client without an endpoint URL.
var ErrNoEndpoint = errors.New("llm: no endpoint configured (set --endpoint or NOVELAPI_ENDPOINT)")

// Config configures a Client. The zero value is invalid only in Endpoint.
type Config struct {
	// Endpoint is the API base URL, e.g. "http://127.0.0.1:8000/v1"; the
	// client posts to Endpoint + "/chat/completions".
	Endpoint string
	// APIKey is sent as a bearer token; "" sends none.
	APIKey string
	// Model is the model name sent with each request.
	Model string
	// Timeout bounds one HTTP attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// Retries is the number of extra attempts after a retryable failure
	// (network error, 429, 5xx); 0 means DefaultRetries, negative means none.
	Retries int
	// RequestsPerSecond limits the request rate; 0 means unlimited.
	RequestsPerSecond float64
	// HTTPClient is used for requests; nil means a new client.
	HTTPClient *http.Client
}

// Defaults for Config.
const (
	DefaultTimeout = 120 * time.Second
	DefaultRetries = 4
)

// A Message is one chat message; Role is "system", "user" or "assistant".
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// A Request is one chat-completion request. N > 1 asks for several samples
// in one call; servers that ignore n are handled by Client.Sample.
type Request struct {
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	N           int       `json:"n,omitempty"`
	Seed        *int      `json:"seed,omitempty"`
	Stop        []string  `json:"stop,omitempty"`
}

// A Response holds the choices' texts and finish reasons, in order.
type Response struct {
	Texts         []string
	FinishReasons []string
	Model         string
}

// A Client calls one endpoint. It is safe for concurrent use.
type Client struct {
	cfg     Config
	hc      *http.Client
	limiter *rate.Limiter
}

// New returns a client for cfg, or ErrNoEndpoint.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.Endpoint) == "" {
		return nil, ErrNoEndpoint
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Retries == 0 {
		cfg.Retries = DefaultRetries
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	c := &Client{cfg: cfg, hc: cfg.HTTPClient}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if cfg.RequestsPerSecond > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(cfg.RequestsPerSecond), 1)
	}
	return c, nil
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// An HTTPError is a non-2xx answer from the endpoint.
type HTTPError struct {
	Status int
	Body   string // first 500 bytes
}

func (e *HTTPError) Error() string { return fmt.Sprintf("llm: HTTP %d: %s", e.Status, e.Body) }

func retryable(err error) bool {
	if he, ok := errors.AsType[*HTTPError](err); ok {
		return he.Status == http.StatusTooManyRequests || he.Status >= 500
	}
	return !errors.Is(err, context.Canceled)
}

// Chat sends req and returns the choices, retrying retryable failures with
// exponential backoff and jitter (honouring Retry-After on 429).
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	var last error
	for attempt := 0; attempt <= c.cfg.Retries; attempt++ {
		if attempt > 0 {
			d := time.Duration(1<<min(attempt-1, 5)) * 500 * time.Millisecond
			d += time.Duration(rand.Int64N(int64(d/2) + 1))
			if he, ok := errors.AsType[*retryAfter](last); ok && he.d > 0 {
				d = he.d
			}
			select {
			case <-ctx.Done():
				return Response{}, context.Cause(ctx)
			case <-time.After(d):
			}
		}
		if c.limiter != nil {
			if err := c.limiter.Wait(ctx); err != nil {
				return Response{}, err
			}
		}
		resp, err := c.once(ctx, req)
		if err == nil {
			return resp, nil
		}
		last = err
		if ctx.Err() != nil || !retryable(err) {
			break
		}
	}
	return Response{}, last
}

type retryAfter struct {
	*HTTPError
	d time.Duration
}

func (r *retryAfter) Unwrap() error { return r.HTTPError }

type wireRequest struct {
	Model string `json:"model"`
	Request
}

type wireResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Content          *string `json:"content"`
			ReasoningContent string  `json:"reasoning_content"`
		} `json:"message"`
		Text         *string `json:"text"`
		FinishReason string  `json:"finish_reason"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *Client) once(ctx context.Context, req Request) (Response, error) {
	body, err := json.Marshal(wireRequest{Model: c.cfg.Model, Request: req})
	if err != nil {
		return Response{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	url := strings.TrimRight(c.cfg.Endpoint, "/") + "/chat/completions"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("llm: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	hresp, err := c.hc.Do(hreq)
	if err != nil {
		return Response{}, fmt.Errorf("llm: post %s: %w", url, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, 64<<20))
	if err != nil {
		return Response{}, fmt.Errorf("llm: read response: %w", err)
	}
	if hresp.StatusCode/100 != 2 {
		he := &HTTPError{Status: hresp.StatusCode, Body: string(data[:min(len(data), 500)])}
		if hresp.StatusCode == http.StatusTooManyRequests {
			secs, _ := strconv.Atoi(hresp.Header.Get("Retry-After"))
			return Response{}, &retryAfter{HTTPError: he, d: time.Duration(secs) * time.Second}
		}
		return Response{}, he
	}
	var wr wireResponse
	if err := json.Unmarshal(data, &wr); err != nil {
		return Response{}, fmt.Errorf("llm: decode response: %w", err)
	}
	if wr.Error != nil {
		return Response{}, fmt.Errorf("llm: endpoint error: %s", wr.Error.Message)
	}
	if len(wr.Choices) == 0 {
		return Response{}, errors.New("llm: response has no choices")
	}
	out := Response{Model: wr.Model}
	for _, ch := range wr.Choices {
		text := ""
		switch {
		case ch.Message.Content != nil:
			text = *ch.Message.Content
		case ch.Text != nil:
			text = *ch.Text
		}
		out.Texts = append(out.Texts, text)
		out.FinishReasons = append(out.FinishReasons, ch.FinishReason)
	}
	return out, nil
}

// Sample returns n completions for messages at temperature t: one request
// with n set, topped up by single requests when the server returns fewer
// choices than asked (several servers ignore n).
func (c *Client) Sample(ctx context.Context, messages []Message, n int, t float64, maxTokens int) (Response, error) {
	if n < 1 {
		n = 1
	}
	req := Request{Messages: messages, Temperature: t, MaxTokens: maxTokens}
	if n > 1 {
		req.N = n
	}
	out, err := c.Chat(ctx, req)
	if err != nil {
		return out, err
	}
	req.N = 0
	for len(out.Texts) < n {
		r, err := c.Chat(ctx, req)
		if err != nil {
			return out, err
		}
		out.Texts = append(out.Texts, r.Texts...)
		out.FinishReasons = append(out.FinishReasons, r.FinishReasons...)
	}
	out.Texts, out.FinishReasons = out.Texts[:n], out.FinishReasons[:n]
	return out, nil
}
