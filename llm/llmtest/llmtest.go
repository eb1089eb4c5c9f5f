// Package llmtest serves the OpenAI-compatible chat-completions wire format
// from a loopback httptest server, so that everything that calls a model can
// be tested without one.
package llmtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A Request is what the server decoded from one POST /v1/chat/completions.
type Request struct {
	Model       string                           `json:"model"`
	Messages    []struct{ Role, Content string } `json:"messages"`
	Temperature float64                          `json:"temperature"`
	N           int                              `json:"n"`
}

// Last returns the content of the last message (usually the user prompt).
func (r Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// An Answer function returns the choices' texts for a request, or a status
// code >= 400 to fail it (with texts ignored).
type Answer func(Request) (texts []string, status int)

// A Server is a running fake endpoint. URL is the base to give a client
// ("http://127.0.0.1:PORT/v1"). Calls counts the requests received.
type Server struct {
	URL   string
	Calls atomic.Int64
}

// NewServer starts a server answering with fn and closes it at the end of t.
func NewServer(t testing.TB, fn Answer) *Server {
	t.Helper()
	s := &Server{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Calls.Add(1)
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		var req Request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		texts, status := fn(req)
		if status >= 400 {
			w.WriteHeader(status)
			w.Write([]byte(`{"error":{"message":"injected failure"}}`))
			return
		}
		type msg struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		type choice struct {
			Index        int    `json:"index"`
			Message      msg    `json:"message"`
			FinishReason string `json:"finish_reason"`
		}
		var resp struct {
			ID      string   `json:"id"`
			Object  string   `json:"object"`
			Model   string   `json:"model"`
			Choices []choice `json:"choices"`
		}
		resp.ID, resp.Object, resp.Model = "chatcmpl-test", "chat.completion", req.Model
		for i, t := range texts {
			resp.Choices = append(resp.Choices, choice{Index: i, Message: msg{"assistant", t}, FinishReason: "stop"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(ts.Close)
	s.URL = ts.URL + "/v1"
	return s
}
