package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

func newRollbackCmd(e *env) *cobra.Command {
	var format string
	var includeLater, dryRun bool
	var sets []string
	cmd := &cobra.Command{
		Use:   "rollback TABLE INSTANT",
		Short: "Roll back a commit, deltacommit, replacecommit or compaction (table version 6, 8 or 9)",
		Long: `Roll back a completed or pending commit, deltacommit, replacecommit or compaction
under a new rollback instant, as Hudi does: on copy-on-write tables the base files the
instant wrote are deleted (earlier versions of rewritten files are the latest again); on
merge-on-read tables logs it appended to get a rollback command block; a replacecommit's
replaced file groups become visible again.

It refuses a savepointed instant, an instant older than a savepoint, and an instant with
later ones after it unless --include-later, which rolls those back first, newest first.
--dry-run lists the instants it would roll back, in order, and changes nothing.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			if !isInstant(args[1]) {
				return usagef("instant %q: want the 17-digit instant time as `hudi timeline` shows it", args[1])
			}
			t, settings, err := e.openWithSettings(cmd.Context(), args[0], sets)
			if err != nil {
				return err
			}
			res, err := t.Rollback(cmd.Context(), args[1], hudi.RollbackOptions{IncludeLater: includeLater, DryRun: dryRun, Settings: settings, Logger: e.logger})
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
			if res.DryRun {
				for _, s := range res.Rollbacks {
					fmt.Fprintf(e.stdout, "would roll back %s %s\n", s.Action, s.Target)
				}
				return nil
			}
			for _, s := range res.Rollbacks {
				fmt.Fprintf(e.stdout, "rolled back %s %s: rollback %s, %d files deleted, %d command-block logs\n",
					s.Action, s.Target, s.Rollback, s.FilesDeleted, s.FilesWritten)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "text", "output: text or json")
	f.BoolVar(&includeLater, "include-later", false, "roll back later instants first, newest first")
	f.BoolVar(&dryRun, "dry-run", false, "list the instants that would be rolled back; change nothing")
	f.StringArrayVar(&sets, "set", nil, "hoodie.* settings: the table lock's (hoodie.write.lock.*), key=value (repeatable)")
	return cmd
}

// isInstant reports whether s looks like an instant time (14 or 17 digits).
func isInstant(s string) bool {
	if len(s) != 17 && len(s) != 14 {
		return false
	}
	return strings.Trim(s, "0123456789") == ""
}
