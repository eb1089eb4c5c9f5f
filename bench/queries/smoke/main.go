// Command smoke writes a docstring smoke-check query set for `novelapi
// eval retrieval --queries`: one {"query", "api_name", "library", "intent"}
// line per bundle, whose query is the first sentence of the bundle's
// mechanism text (its docstring summary). Its words are in the index
// already, so it only checks that retrieval works end to end; the real
// measure is bench/queries/nl.jsonl (docs/retrieval.md).
//
//	go run ./bench/queries/smoke BUNDLES.jsonl... > smoke.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: smoke BUNDLES.jsonl... > queries.jsonl")
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, path := range os.Args[1:] {
		bs, _, err := bundles.ReadBundles(path, jsonl.ReadOptions{SkipBad: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, "smoke:", err)
			os.Exit(1)
		}
		for _, b := range bs {
			q := firstSentence(b.Mechanism.Text)
			if len(strings.Fields(q)) < 3 {
				continue
			}
			enc.Encode(map[string]string{"query": q, "api_name": b.APIName, "library": b.Library, "intent": "docstring-smoke"})
		}
	}
}

// firstSentence returns text up to its first ". " (or all of it), at most
// 40 words.
func firstSentence(text string) string {
	if i := strings.Index(text, ". "); i >= 0 {
		text = text[:i+1]
	}
	w := strings.Fields(text)
	return strings.Join(w[:min(40, len(w))], " ")
}
