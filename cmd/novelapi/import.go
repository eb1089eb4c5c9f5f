package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newImportCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "import",
		Short: "Import task pools from other studies",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("import: not implemented yet")
		},
	}
}
