package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newIndexCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "index",
		Short: "Build and inspect the retrieval index",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("index: not implemented yet")
		},
	}
}
