package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newExtractCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "extract",
		Short: "Stage 2: extract knowledge bundles",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("extract: not implemented yet")
		},
	}
}
