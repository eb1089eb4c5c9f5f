package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newRenderCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "render",
		Short: "Render a knowledge condition for an API",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("render: not implemented yet")
		},
	}
}
