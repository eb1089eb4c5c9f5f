package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newDiscoverCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "discover",
		Short: "Stage 1: discover novel APIs",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("discover: not implemented yet")
		},
	}
}
