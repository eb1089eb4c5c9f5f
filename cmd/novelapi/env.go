package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newEnvCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "env",
		Short: "Build, list and remove sandbox environments",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("env: not implemented yet")
		},
	}
}
