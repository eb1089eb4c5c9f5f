package evalharness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/novelapi/novelapi/sandbox"
)

// Extract applies code extraction (docs/protocol.md §3) to many
// responses with one sandbox run in env: every candidate snippet is parsed
// there with ast.parse, and the selection is made here. The result has one
// code string per response.
func (h *Harness) Extract(ctx context.Context, env *sandbox.Environment, responses []string) ([]string, error) {
	codes, _, err := h.extractBatch(ctx, env, responses)
	return codes, err
}

// extractBatch also returns what the runner's own extraction (py/runner.py)
// chose for each response, for cross-checking the two implementations.
func (h *Harness) extractBatch(ctx context.Context, env *sandbox.Environment, responses []string) (goCodes, pyCodes []string, err error) {
	plans := make([]extractionPlan, len(responses))
	index := map[string]int{}
	var cands []string
	for i, r := range responses {
		plans[i] = planExtraction(r)
		for _, c := range plans[i].candidates() {
			if _, ok := index[c]; !ok {
				index[c] = len(cands)
				cands = append(cands, c)
			}
		}
	}
	jb, err := json.Marshal(map[string]any{"cands": cands, "plans": plans})
	if err != nil {
		return nil, nil, err
	}
	var nb [16]byte
	rand.Read(nb[:])
	nonce := hex.EncodeToString(nb[:])
	res, err := h.cfg.Runner.Run(ctx, sandbox.Spec{
		Environment: env,
		Files: []sandbox.File{
			{Path: "runner.py", Data: []byte(pyFile("runner.py"))},
			{Path: "parse.py", Data: []byte(pyFile("parse.py"))},
			{Path: "parse.json", Data: jb},
		},
		Argv:   []string{"python3", "-I", "-B", "/job/parse.py"},
		Stdin:  []byte(nonce + "\n"),
		Limits: sandbox.Limits{Wall: 60 * time.Second, Memory: h.cfg.Memory},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("parse run: %w", err)
	}
	var parsed struct {
		OK        []bool   `json:"ok"`
		Extracted []string `json:"extracted"`
	}
	found := false
	for line := range bytes.SplitSeq(res.Outputs["records.jsonl"], []byte("\n")) {
		var head struct {
			Type  string `json:"type"`
			Nonce string `json:"nonce"`
		}
		if json.Unmarshal(line, &head) != nil || head.Nonce != nonce || head.Type != "parse" {
			continue
		}
		if err := json.Unmarshal(line, &parsed); err != nil {
			return nil, nil, fmt.Errorf("parse run: %w", err)
		}
		found = true
	}
	if !found || len(parsed.OK) != len(cands) {
		return nil, nil, fmt.Errorf("parse run: no result (exit %d, timed out %v): %s", res.ExitCode, res.TimedOut, lastRunes(string(res.Stderr), 500))
	}
	parses := func(c string) bool { return parsed.OK[index[c]] }
	goCodes = make([]string, len(responses))
	for i, p := range plans {
		goCodes[i] = p.Select(parses)
	}
	return goCodes, parsed.Extracted, nil
}
