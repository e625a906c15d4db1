package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newRollbackCmd is a placeholder until the service lands.
func newRollbackCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "rollback TABLE INSTANT",
		Short: "Roll back an instant (not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("%s is not implemented yet", cmd.Name())
		},
	}
}
