package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newTasksCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "tasks",
		Short: "Build task pools",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("tasks: not implemented yet")
		},
	}
}
