package llm_test

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/llm/llmtest"
)

func TestClient_Chat(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		return []string{"echo: " + r.Last() + " model=" + r.Model}, 0
	})
	c, err := llm.New(llm.Config{Endpoint: srv.URL, Model: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Texts[0], "echo: hi model=m1"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

func TestClient_RetriesServerErrors(t *testing.T) {
	var n atomic.Int64
	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		if n.Add(1) < 3 {
			return nil, 503
		}
		return []string{"ok"}, 0
	})
	c, _ := llm.New(llm.Config{Endpoint: srv.URL, Model: "m"})
	resp, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}})
	if err != nil || resp.Texts[0] != "ok" {
		t.Fatalf("Chat = %v, %v; want ok after retries", resp.Texts, err)
	}
	if got := srv.Calls.Load(); got != 3 {
		t.Errorf("calls = %d, want 3", got)
	}
}

func TestClient_NoRetryOnClientError(t *testing.T) {
	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) { return nil, 400 })
	c, _ := llm.New(llm.Config{Endpoint: srv.URL, Model: "m"})
	_, err := c.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "x"}}})
	he, ok := errors.AsType[*llm.HTTPError](err)
	if !ok || he.Status != 400 {
		t.Fatalf("err = %v, want HTTP 400", err)
	}
	if got := srv.Calls.Load(); got != 1 {
		t.Errorf("calls = %d, want 1 (400 is not retryable)", got)
	}
}

func TestClient_SampleTopsUpWhenNIgnored(t *testing.T) {
	var i atomic.Int64
	srv := llmtest.NewServer(t, func(r llmtest.Request) ([]string, int) {
		return []string{"s" + strings.Repeat("x", int(i.Add(1)))}, 0 // ignores n
	})
	c, _ := llm.New(llm.Config{Endpoint: srv.URL, Model: "m"})
	resp, err := c.Sample(t.Context(), []llm.Message{{Role: "user", Content: "x"}}, 3, 0.8, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Texts) != 3 || resp.Texts[2] != "sxxx" {
		t.Errorf("texts = %q, want 3 distinct samples", resp.Texts)
	}
}

func TestNew_NoEndpoint(t *testing.T) {
	if _, err := llm.New(llm.Config{}); !errors.Is(err, llm.ErrNoEndpoint) {
		t.Errorf("err = %v, want ErrNoEndpoint", err)
	}
}
