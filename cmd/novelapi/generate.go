package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newGenerateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "generate",
		Short: "Generate predictions with a model endpoint",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("generate: not implemented yet")
		},
	}
}
