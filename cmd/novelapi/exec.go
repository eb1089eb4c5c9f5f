package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newExecCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "exec",
		Short: "Run a Python file in a sandbox",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("exec: not implemented yet")
		},
	}
}
