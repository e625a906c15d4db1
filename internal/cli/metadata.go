package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
)

// errMetadataDiffers makes `hudi metadata TABLE validate` exit 1 after printing the
// differences.
var errMetadataDiffers = errors.New("the metadata table differs from storage")

func newMetadataCmd(e *env) *cobra.Command {
	var format string
	var sets []string
	cmd := &cobra.Command{
		Use:   "metadata TABLE init|validate|delete|describe",
		Short: "Build, check, delete or describe a table's metadata table",
		Long: `The metadata table (.hoodie/metadata) lists a table's partitions and files so that
readers need not list storage. Writes and table services keep it current while
hoodie.metadata.enable is true (the default); an operation run with it false deletes it,
as Java does.

init builds it from a listing of the table (refused when the table has one, or while an
instant is pending). validate compares its files partition with a listing of the table —
the file slices planned from each must be the same — prints the differences and exits 1
when there are any. delete disables and deletes it. describe shows its partitions,
timeline and file groups, and how many files it lists.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			op := args[1]
			switch op {
			case "init", "validate", "delete", "describe":
			default:
				return usagef("metadata operation %q: want init, validate, delete or describe", op)
			}
			t, settings, err := e.openWithSettings(cmd.Context(), args[0], sets)
			if err != nil {
				return err
			}
			mo := hudi.MetadataOptions{Settings: settings, Logger: e.logger}
			out := func(v any) error {
				b, err := json.Marshal(v)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.stdout, string(b))
				return nil
			}
			switch op {
			case "init", "describe":
				var info *hudi.MetadataInfo
				if op == "init" {
					info, err = t.MetadataInit(cmd.Context(), mo)
				} else {
					info, err = t.MetadataDescribe(cmd.Context())
				}
				if err != nil {
					return err
				}
				if format == "json" {
					return out(info)
				}
				printMetadataInfo(e, info)
			case "delete":
				had, err := t.MetadataDelete(cmd.Context(), mo)
				if err != nil {
					return err
				}
				if format == "json" {
					return out(map[string]any{"operation": "delete", "deleted": had})
				}
				if had {
					fmt.Fprintln(e.stdout, "metadata table deleted")
				} else {
					fmt.Fprintln(e.stdout, "the table has no metadata table")
				}
			case "validate":
				v, err := t.MetadataValidate(cmd.Context())
				if err != nil {
					return err
				}
				if format == "json" {
					if err := out(v); err != nil {
						return err
					}
				} else {
					for _, d := range v.Differences {
						fmt.Fprintln(e.stdout, d)
					}
					switch {
					case v.RecordIndexSkipped != "":
						fmt.Fprintf(e.stdout, "record_index: not compared (%s)\n", v.RecordIndexSkipped)
					case v.RecordIndexKeys > 0:
						fmt.Fprintf(e.stdout, "record_index: compared %d keys of the snapshot\n", v.RecordIndexKeys)
					}
					if v.ColumnStats {
						fmt.Fprintf(e.stdout, "column_stats: compared %d records of %d files (%d base files without records)\n",
							v.ColumnStatsRecords, v.ColumnStatsFiles, v.ColumnStatsUnindexed)
					}
					if v.BloomFilters {
						fmt.Fprintf(e.stdout, "bloom_filters: compared the filters of %d base files\n", v.BloomFilterFiles)
					}
					fmt.Fprintf(e.stdout, "compared %d partitions, %d file groups, %d file slices, %d files: %d differences\n",
						v.Partitions, v.FileGroups, v.FileSlices, v.Files, len(v.Differences))
				}
				if !v.OK() {
					return fmt.Errorf("%w: %d differences", errMetadataDiffers, len(v.Differences))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringArrayVar(&sets, "set", nil, "hoodie.* settings: hoodie.metadata.* and the table lock's (hoodie.write.lock.*), key=value (repeatable)")
	return cmd
}

func printMetadataInfo(e *env, info *hudi.MetadataInfo) {
	w := e.stdout
	fmt.Fprintf(w, "partitions (hoodie.table.metadata.partitions): %s\n", noneIfEmpty(info.Partitions))
	if len(info.PartitionsInflight) > 0 {
		fmt.Fprintf(w, "partitions being built: %s\n", strings.Join(info.PartitionsInflight, ", "))
	}
	if !info.Exists {
		fmt.Fprintln(w, "no metadata table")
		return
	}
	fmt.Fprintf(w, "table: %s (version %d)\n", info.Name, info.Version)
	var counts []string
	for _, a := range []string{"deltacommit", "commit", "clean", "rollback", "restore"} {
		if n := info.Instants[a]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, a))
		}
	}
	fmt.Fprintf(w, "instants: %s; %d pending\n", noneIfEmpty(counts), info.Pending)
	if info.LatestInstant != "" {
		fmt.Fprintf(w, "latest instant: %s\n", info.LatestInstant)
	}
	if info.LatestCompaction != "" {
		fmt.Fprintf(w, "latest compaction: %s\n", info.LatestCompaction)
	}
	for _, g := range info.FileGroups {
		base := g.BaseFile
		if base == "" {
			base = "(no base file)"
		}
		fmt.Fprintf(w, "file group %s/%s: %s + %d log files, %d bytes\n", g.Partition, g.FileID, base, g.LogFiles, g.Bytes)
	}
	fmt.Fprintf(w, "lists %d partitions, %d files, %d bytes\n", info.DataPartitions, info.DataFiles, info.DataBytes)
}

func noneIfEmpty(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
