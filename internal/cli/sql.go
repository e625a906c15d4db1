package cli

import "github.com/spf13/cobra"

// addSQLCommands registers `hudi sql` and `hudi quickstart` (placeholder until they land).
func addSQLCommands(root *cobra.Command, e *env) {}
