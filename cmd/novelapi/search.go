package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newSearchCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "search",
		Short: "Search the index",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("search: not implemented yet")
		},
	}
}
