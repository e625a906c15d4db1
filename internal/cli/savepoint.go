package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

func newSavepointCmd(e *env) *cobra.Command {
	var format, user, comment string
	var sets []string
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "savepoint TABLE create|delete|restore INSTANT",
		Short: "Create or delete a savepoint, or restore the table to one (table version 6, 8 or 9)",
		Long: `create savepoints a completed commit: its latest file slices are recorded in
<instant>.savepoint and the cleaner keeps them. delete removes the savepoint. restore rolls
back every commit, deltacommit, replacecommit and compaction after the savepoint (newest
first, pending ones too) under one restore instant; reads then return the table as of
the savepoint. restore --dry-run lists the instants it would roll back and changes nothing.`,
		Args: exactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			var op hudi.SavepointOp
			switch args[1] {
			case "create":
				op = hudi.SavepointCreate
			case "delete":
				op = hudi.SavepointDelete
			case "restore":
				op = hudi.SavepointRestore
			default:
				return usagef("savepoint operation %q: want create, delete or restore", args[1])
			}
			if dryRun && op != hudi.SavepointRestore {
				return usagef("--dry-run applies to restore only")
			}
			if !isInstant(args[2]) {
				return usagef("instant %q: want the 17-digit instant time as `hudi timeline` shows it", args[2])
			}
			t, settings, err := e.openWithSettings(cmd.Context(), args[0], sets)
			if err != nil {
				return err
			}
			res, err := t.Savepoint(cmd.Context(), op, args[2], hudi.SavepointOptions{User: user, Comment: comment, DryRun: dryRun,
				Settings: settings, Logger: e.logger})
			if err != nil {
				return err
			}
			if format == "json" {
				b, err := json.Marshal(res)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, string(b))
				return nil
			}
			switch op {
			case hudi.SavepointCreate:
				fmt.Fprintf(e.stdout, "savepoint %s created: %d files in %d partitions\n", res.Savepoint, res.Files, res.Partitions)
			case hudi.SavepointDelete:
				fmt.Fprintf(e.stdout, "savepoint %s deleted\n", res.Savepoint)
			default:
				if res.DryRun {
					fmt.Fprintf(e.stdout, "restore to savepoint %s would roll back %d instants: %s\n",
						res.Savepoint, len(res.InstantsRolledBack), strings.Join(res.InstantsRolledBack, ", "))
					break
				}
				fmt.Fprintf(e.stdout, "restored to savepoint %s: restore %s rolled back %d instants, %d files deleted\n",
					res.Savepoint, res.Instant, len(res.InstantsRolledBack), res.FilesDeleted)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringVar(&user, "user", "", "savepointedBy of a new savepoint (default \"default\")")
	f.StringVar(&comment, "comment", "", "comments of a new savepoint (default \"default\")")
	f.BoolVar(&dryRun, "dry-run", false, "restore: list the instants that would be rolled back; change nothing")
	f.StringArrayVar(&sets, "set", nil, "hoodie.* settings: the table lock's (hoodie.write.lock.*), key=value (repeatable)")
	return cmd
}
