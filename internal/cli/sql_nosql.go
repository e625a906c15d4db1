//go:build nosql

package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// errNoSQL is what `hudi sql` and `hudi quickstart` say in a build without DuckDB.
var errNoSQL = errors.New("this hudi was built without SQL (-tags nosql); build without the tag for `hudi sql` and `hudi quickstart`")

// addSQLCommands registers `hudi sql` and `hudi quickstart` as stubs: this pure-Go build
// does not link DuckDB, which the SQL engine needs.
func addSQLCommands(root *cobra.Command, e *env) {
	for _, use := range []string{"sql", "quickstart"} {
		root.AddCommand(&cobra.Command{
			Use:                use,
			Short:              "Not available: this hudi was built without SQL (-tags nosql)",
			DisableFlagParsing: true,
			RunE:               func(cmd *cobra.Command, args []string) error { return errNoSQL },
		})
	}
}
