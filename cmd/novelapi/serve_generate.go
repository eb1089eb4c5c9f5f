package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/generate"
	"github.com/novelapi/novelapi/index"
	"github.com/novelapi/novelapi/llm"
	"github.com/novelapi/novelapi/mcpserver"
	"github.com/novelapi/novelapi/pool"
)

// mcpGenerator returns the evaluate tool's use_model hook: it generates
// predictions for the selected tasks with client, taking knowledge from the
// index at indexDir (the task's own bundle for "oracle", hybrid retrieval
// for "retrieved").
func mcpGenerator(client *llm.Client, indexDir string) func(context.Context, mcpserver.GenerateRequest) ([]*pool.Prediction, error) {
	return func(ctx context.Context, r mcpserver.GenerateRequest) ([]*pool.Prediction, error) {
		ix, err := index.Open(indexDir, index.OpenOptions{})
		if err != nil {
			return nil, err
		}
		defer ix.Close()
		cond := bundles.Condition("S+E")
		if r.Condition != "" {
			if cond, err = bundles.ParseCondition(r.Condition); err != nil {
				return nil, err
			}
		}
		var src generate.KnowledgeSource
		switch r.Retrieval {
		case "", "oracle":
			src = generate.NewOracle(ix.Bundles())
		case "retrieved":
			src = &generate.Retrieved{Index: ix, Retriever: index.Hybrid}
		default:
			return nil, fmt.Errorf("unknown retrieval %q (want oracle or retrieved)", r.Retrieval)
		}
		if cond == "none" {
			src = generate.None{}
		}
		dir, err := os.MkdirTemp("", "novelapi-generate-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "predictions.jsonl")
		if _, err := generate.Run(ctx, generate.Config{Tasks: r.Tasks, Condition: cond, Source: src, Client: client, Out: out}); err != nil {
			return nil, err
		}
		return pool.LoadPredictions(out)
	}
}
