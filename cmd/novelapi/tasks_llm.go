package main

import (
	"context"
	"io"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/construct"
	"github.com/novelapi/novelapi/evalharness"
	"github.com/novelapi/novelapi/pool"
	"github.com/novelapi/novelapi/sandbox"
)

// buildPool runs the Stage 3 generator chosen by --generator: offline
// (construct.BuildTasks) or llm (construct.GenerateTasks with the
// --endpoint/--model flags).
func buildPool(ctx context.Context, g *globals, cfg tasksBuildConfig, bs []bundles.Bundle, env, oldEnv *sandbox.Environment,
	runner sandbox.Runner, progress io.Writer) ([]*pool.Task, construct.BuildSummary, error) {
	switch cfg.generator {
	case "", "offline":
		return construct.BuildTasks(ctx, construct.BuildConfig{
			Bundles: bs, Env: env, Runner: runner, MaxExamples: cfg.maxExamples, Medium: !cfg.noMedium, ChangeOnly: cfg.changeOnly, OldEnv: oldEnv,
			Workers: cfg.workers, Progress: progress, Log: g.log,
			SkipMutantCheck: cfg.noTestCheck, KeepWeak: cfg.keepWeak, CheckPath: evalharness.CheckPath(cfg.out),
		})
	case "llm":
		client, err := cfg.ep.client()
		if err != nil {
			return nil, construct.BuildSummary{}, err
		}
		if cfg.ep.model == "" {
			return nil, construct.BuildSummary{}, usagef("tasks build --generator llm needs --model NAME")
		}
		return construct.GenerateTasks(ctx, construct.LLMConfig{
			Bundles: bs, Env: env, Runner: runner, Client: client, Workers: cfg.workers, Progress: progress, Log: g.log,
		})
	}
	return nil, construct.BuildSummary{}, usagef("tasks build: unknown --generator %q: want offline or llm", cfg.generator)
}
