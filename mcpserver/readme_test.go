package mcpserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novelapi/novelapi/sandbox"
)

// readmeSection returns the "Use with coding agents" section of README.md.
func readmeSection(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "## Use with coding agents")
	if i < 0 {
		t.Fatal(`README.md has no "## Use with coding agents" section`)
	}
	s = s[i:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+3]
	}
	return s
}

// clientConfig is the shape shared by the clients' JSON configs.
type clientConfig struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Type    string   `json:"type"`
	URL     string   `json:"url"`
}

// The README's walkthrough, as written: every JSON config parses, and every
// command it names (with the index path swapped for the test index and
// "novelapi" for the built binary) starts the server, which answers
// initialize and tools/list (six tools where a sandbox backend works, else
// the four that run no code); the HTTP configs' URL shape is served.
func TestREADME_AgentConfigs(t *testing.T) {
	sec := readmeSection(t)
	wantTools := 4
	if _, err := sandbox.Auto(t.Context(), sandbox.AutoConfig{Log: quietLog()}); err == nil {
		wantTools = 6
	}
	var commands [][]string
	var urls []string
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(sec, -1) {
		var doc map[string]map[string]clientConfig
		if err := json.Unmarshal([]byte(m[1]), &doc); err != nil {
			t.Fatalf("README JSON block does not parse: %v\n%s", err, m[1])
		}
		servers := doc["mcpServers"]
		if servers == nil {
			servers = doc["servers"]
		}
		cfg, ok := servers["novelapi"]
		if !ok {
			t.Fatalf("README JSON block has no novelapi server:\n%s", m[1])
		}
		if cfg.URL != "" {
			urls = append(urls, cfg.URL)
			continue
		}
		commands = append(commands, append([]string{cfg.Command}, cfg.Args...))
	}
	for _, m := range regexp.MustCompile(`(?m)^claude mcp add novelapi -- (.*)$`).FindAllStringSubmatch(sec, -1) {
		commands = append(commands, strings.Fields(m[1]))
	}
	if len(commands) < 4 || len(urls) < 1 {
		t.Fatalf("README walkthrough: %d commands, %d URLs; want Claude Code, Claude Desktop, Cursor, VS Code and an HTTP URL", len(commands), len(urls))
	}
	for _, argv := range commands {
		if argv[0] != "novelapi" || len(argv) < 4 || argv[1] != "serve" || argv[2] != "--index" {
			t.Errorf("README command %v is not `novelapi serve --index DIR`", argv)
			continue
		}
		args := append([]string{"serve", "--index", indexDir(t)}, argv[4:]...)
		cmd := exec.Command(novelapiBinary(t), args...)
		cmd.Env = append(os.Environ(), "NOVELAPI_HOME="+t.TempDir())
		cs, err := sdkClient().Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("%v: initialize: %v", argv, err)
		}
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil || len(tools.Tools) != wantTools {
			t.Errorf("%v: tools/list: %v, %v", argv, tools, err)
		}
		cs.Close()
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, "http://127.0.0.1:8080/mcp") {
			t.Errorf("README HTTP URL %q does not match `serve --http 127.0.0.1:8080` (path /mcp)", u)
		}
	}
	if !strings.Contains(sec, "novelapi serve --index DIR --http 127.0.0.1:8080") {
		t.Error("README does not show how to start the HTTP server")
	}
}
