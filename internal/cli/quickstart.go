//go:build !nosql

package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	hsql "github.com/hudi-go/hudi/internal/sql"
)

func newQuickstartCmd(e *env) *cobra.Command {
	var f sqlFlags
	var dir string
	cmd := &cobra.Command{
		Use:   "quickstart [--dir DIR]",
		Short: "Run Hudi's Spark SQL quick start on a local table: create, insert, query, update, merge, delete, time travel, incremental",
		Long: `Run the quick start of the Hudi Spark guide end to end with SQL statements on a local
trips table, printing each statement and its result. The warehouse (--dir, default a new
temp directory) is kept, so the tables can be explored afterwards with
hudi sql --warehouse DIR.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.warehouse = dir
			o, err := f.options(e)
			if err != nil {
				return err
			}
			if o.Warehouse == "" {
				if o.Warehouse, err = os.MkdirTemp("", "hudi-quickstart-"); err != nil {
					return err
				}
			} else if ents, err := os.ReadDir(o.Warehouse); err == nil && len(ents) > 0 {
				return usagef("--dir %s is not empty: the quick start creates its tables in a fresh directory", o.Warehouse)
			}
			fmt.Fprintf(e.stdout, "Hudi quick start in warehouse %s\n", o.Warehouse)
			if err := hsql.Quickstart(cmd.Context(), o, e.stdout, f.format); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "\nDone. Explore the tables with: hudi sql --warehouse %s\n", o.Warehouse)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "warehouse directory for the quick start's tables (default: a new temp directory)")
	f.register(cmd)
	return cmd
}
