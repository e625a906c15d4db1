package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newClusterCmd is a placeholder until the service lands.
func newClusterCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "cluster TABLE",
		Short: "Cluster file groups (not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("%s is not implemented yet", cmd.Name())
		},
	}
}
