package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/novelapi/novelapi/bundles"
	"github.com/novelapi/novelapi/internal/jsonl"
)

// renderConfig holds the flags of `novelapi render`.
type renderConfig struct {
	bundlesPath string
	api         string
	condition   string
	components  string
	prompt      bool
	taskPath    string
	taskID      string
	skipBad     bool
	json        bool
}

func newRenderCmd(g *globals) *cobra.Command {
	var cfg renderConfig
	cmd := &cobra.Command{
		Use:   "render [--bundles FILE] --api NAME [--condition C | --components S,E] [--prompt --task-json T]",
		Short: "Print an API's knowledge under a condition (docs/protocol.md §2.2), optionally as the evaluation prompt (§2.3)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRender(g, cfg, cmd.Flags().Changed("condition"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.bundlesPath, "bundles", "", "bundles.jsonl file, ours or the published benchmark's (default $NOVELAPI_HOME/bundles.jsonl, what novelapi up writes)")
	f.StringVar(&cfg.api, "api", "", "fully qualified API name, one of its aliases (np. / pd. / sp. accepted) or its public instance (scipy.stats.triang)")
	f.StringVar(&cfg.condition, "condition", "Full", "knowledge condition: value (S+E) or enum name (S_E)")
	f.StringVar(&cfg.components, "components", "", "render this component set instead of a condition, e.g. S_param,E")
	f.BoolVar(&cfg.prompt, "prompt", false, "print the full evaluation prompt (needs --task-json)")
	f.StringVar(&cfg.taskPath, "task-json", "", "JSON or JSONL file with task records (description, context_code)")
	f.StringVar(&cfg.taskID, "task-id", "", "task_id to pick from --task-json (default: the only record, or the first for --api)")
	f.BoolVar(&cfg.skipBad, "skip-bad", false, "skip malformed lines of the bundles file instead of failing")
	f.BoolVar(&cfg.json, "json", false, "print {api_name, condition, knowledge, prompt} as JSON")
	cmd.MarkFlagRequired("api")
	return cmd
}

func runRender(g *globals, cfg renderConfig, conditionSet bool) error {
	if conditionSet && cfg.components != "" {
		return usagef("render: give --condition or --components, not both")
	}
	cond, err := bundles.ParseCondition(cfg.condition)
	if err != nil {
		return usagef("render: --condition: %v", err)
	}
	comps := cond.Components()
	label := string(cond)
	if cfg.components != "" {
		if comps, err = bundles.ParseComponents(cfg.components); err != nil {
			return usagef("render: --components: %v", err)
		}
		label = comps.String()
	}
	if cfg.prompt && cfg.taskPath == "" {
		return usagef("render: --prompt needs --task-json")
	}
	if cfg.bundlesPath == "" {
		cfg.bundlesPath = filepath.Join(g.home, "bundles.jsonl")
	}
	bs, stats, err := bundles.ReadBundles(cfg.bundlesPath, jsonl.ReadOptions{SkipBad: cfg.skipBad})
	if _, ok := errors.AsType[*jsonl.ParseError](err); ok {
		return fmt.Errorf("%w (--skip-bad skips malformed lines)", err)
	} else if err != nil {
		return err
	}
	if stats.Skipped > 0 {
		g.log.Warn("skipped malformed bundle lines", "file", cfg.bundlesPath, "skipped", stats.Skipped, "first", stats.Bad[0].Error())
	}
	b, err := bundles.Find(bs, cfg.api)
	if err != nil {
		return fmt.Errorf("render: %w in %s", err, cfg.bundlesPath)
	}
	knowledge := bundles.RenderComponents(b, comps)
	out := knowledge
	var prompt string
	if cfg.taskPath != "" {
		task, err := pickTask(cfg)
		if err != nil {
			return err
		}
		if task.APIName != "" && task.APIName != b.APIName {
			g.log.Warn("rendering another API's knowledge into the task's prompt", "task", task.TaskID, "task_api", task.APIName, "api", b.APIName)
		}
		prompt = bundles.Prompt(task, knowledge)
		if cfg.prompt {
			out = prompt
		}
	}
	if cfg.json {
		return writeJSON(g.stdout, map[string]any{
			"api_name": b.APIName, "condition": label, "knowledge": knowledge, "prompt": prompt,
		})
	}
	if out != "" && out[len(out)-1] != '\n' {
		out += "\n"
	}
	_, err = fmt.Fprint(g.stdout, out)
	return err
}

// pickTask reads --task-json (one JSON object, or JSONL task records),
// refusing a line that is no task (see [bundles.ReadPromptInputs]), and
// selects the task by --task-id, else the only record, else the first whose
// api_name is --api.
func pickTask(cfg renderConfig) (bundles.PromptInput, error) {
	tasks, _, err := bundles.ReadPromptInputs(cfg.taskPath, jsonl.ReadOptions{})
	if err != nil {
		return bundles.PromptInput{}, err
	}
	for _, t := range tasks {
		switch {
		case cfg.taskID != "" && t.TaskID == cfg.taskID,
			cfg.taskID == "" && len(tasks) == 1,
			cfg.taskID == "" && t.APIName == cfg.api:
			return t, nil
		}
	}
	if cfg.taskID != "" {
		return bundles.PromptInput{}, fmt.Errorf("render: no task %q in %s", cfg.taskID, cfg.taskPath)
	}
	return bundles.PromptInput{}, fmt.Errorf("render: %s has %d tasks and none for %s; pass --task-id", cfg.taskPath, len(tasks), cfg.api)
}
