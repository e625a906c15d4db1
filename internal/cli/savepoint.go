package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newSavepointCmd is a placeholder until the service lands.
func newSavepointCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "savepoint TABLE create|delete|restore INSTANT",
		Short: "Savepoints (not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("%s is not implemented yet", cmd.Name())
		},
	}
}
