package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newCleanCmd is a placeholder until the service lands.
func newCleanCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "clean TABLE",
		Short: "Clean old file versions (not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("%s is not implemented yet", cmd.Name())
		},
	}
}
