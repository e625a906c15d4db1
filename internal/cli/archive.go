package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newArchiveCmd is a placeholder until the service lands.
func newArchiveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "archive TABLE",
		Short: "Archive old instants (not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("%s is not implemented yet", cmd.Name())
		},
	}
}
