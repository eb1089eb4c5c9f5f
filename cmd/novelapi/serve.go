package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newServeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the MCP server",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("serve: not implemented yet")
		},
	}
}
