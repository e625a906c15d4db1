package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

// newVersionChangeCmd is `hudi upgrade` (down=false) or `hudi downgrade` (down=true).
func newVersionChangeCmd(e *env, down bool) *cobra.Command {
	var to int
	var format string
	var sets []string
	use, short, long := "upgrade TABLE --to 8|9",
		"Upgrade a table to version 8 or 9 (Hudi 1.0 / 1.1) with Hudi 1.x's steps",
		`Upgrade a table of version 6 (Hudi 0.14/0.15) to version 8 (Hudi 1.0) or 9 (Hudi 1.1/1.2),
or 8 to 9, as Hudi 1.x's UpgradeDowngrade does: failed writes are rolled back and a
merge-on-read table is compacted first; the timeline moves to .hoodie/timeline with
completion times in completed file names and Avro commit metadata; the archived timeline
becomes the LSM timeline (timeline/history); hoodie.properties gets the 1.x keys. A
metadata table is deleted (hudi-go does not keep one on versions 8/9 yet). Upgrading a
table already at --to only deletes what an interrupted upgrade left.`
	if down {
		use, short, long = "downgrade TABLE --to 6|8",
			"Downgrade a table of version 9 or 8 to version 8 or 6 with Hudi 1.x's steps",
			`Downgrade a table of version 9 to 8 or 6 (or 8 to 6), as Hudi 1.x's UpgradeDowngrade
does: failed writes are rolled back and a merge-on-read table is compacted first; the
timeline moves back under .hoodie without completion times and with JSON commit
metadata; hoodie.properties gets the version 6 keys. A table whose LSM timeline holds
archived instants is refused (not done yet); a metadata table is deleted.`
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  long,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("to") {
				return usagef("--to is required")
			}
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			t, settings, err := e.openWithSettings(cmd.Context(), args[0], sets)
			if err != nil {
				return err
			}
			o := hudi.VersionChangeOptions{To: to, Settings: settings, Logger: e.logger}
			var res *hudi.VersionChangeResult
			if down {
				res, err = t.Downgrade(cmd.Context(), o)
			} else {
				res, err = t.Upgrade(cmd.Context(), o)
			}
			if err != nil {
				return err
			}
			if format == "json" {
				b, err := json.Marshal(versionChangeJSON(res))
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, string(b))
				return nil
			}
			if res.From == res.To {
				fmt.Fprintf(e.stdout, "table is version %d already; %d stale files deleted\n", res.To, res.Stale)
				return nil
			}
			fmt.Fprintf(e.stdout, "table version %d -> %d: %d timeline files, %d archived instants\n", res.From, res.To, res.Files, res.Archived)
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&to, "to", 0, "table version wanted")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringArrayVar(&sets, "set", nil, "any hoodie.* setting, key=value (repeatable)")
	return cmd
}

// versionChangeJSON is the result of upgrade/downgrade as JSON (docs/cli.md).
func versionChangeJSON(r *hudi.VersionChangeResult) map[string]any {
	rolled := r.RolledBack
	if rolled == nil {
		rolled = []string{}
	}
	return map[string]any{"from": r.From, "to": r.To, "rolled_back": rolled, "compacted": r.Compacted,
		"metadata_table_dropped": r.MetadataTableDropped, "files": r.Files, "archived": r.Archived, "stale": r.Stale}
}
