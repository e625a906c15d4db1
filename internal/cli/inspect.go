package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hudi-go/hudi"
	"github.com/hudi-go/hudi/internal/format/commitmeta"
	"github.com/hudi-go/hudi/internal/sparktype"
	"github.com/hudi-go/hudi/internal/spec"
)

// TimelineEntry is one row of `hudi timeline`.
type TimelineEntry struct {
	Instant        string `json:"instant"`
	Action         string `json:"action"`
	State          string `json:"state"`
	CompletionTime string `json:"completion_time,omitempty"`
	Archived       bool   `json:"archived,omitempty"`
	// Operation and the stats of a completed commit, deltacommit or replacecommit (the
	// columns of hudi-cli's `commits show`); absent for other instants.
	Operation                 string `json:"operation,omitempty"`
	TotalBytesWritten         *int64 `json:"total_bytes_written,omitempty"`
	TotalFilesAdded           *int64 `json:"total_files_added,omitempty"`
	TotalFilesUpdated         *int64 `json:"total_files_updated,omitempty"`
	TotalPartitionsWritten    *int64 `json:"total_partitions_written,omitempty"`
	TotalRecordsWritten       *int64 `json:"total_records_written,omitempty"`
	TotalUpdateRecordsWritten *int64 `json:"total_update_records_written,omitempty"`
	TotalErrors               *int64 `json:"total_errors,omitempty"`
}

func newTimelineCmd(e *env) *cobra.Command {
	var format string
	var sets []string
	var archived bool
	cmd := &cobra.Command{
		Use:   "timeline TABLE",
		Short: "List the table's instants: time, action, state, completion time, and each commit's operation and stats",
		Long: `List the table's instants: time, action, state and completion time (table version 8+:
from the timeline; version 6: the completed file's modification time, as Java's v6
timeline does), and for each completed commit, deltacommit and replacecommit its
operation and stats, the columns of hudi-cli's "commits show": bytes written, files
added and updated, partitions written, records written and updated, errors.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			settings, err := e.storageSettings(sets)
			if err != nil {
				return err
			}
			t, err := hudi.Open(cmd.Context(), args[0], hudi.WithSettings(settings))
			if err != nil {
				return err
			}
			entries := timelineEntries(cmd.Context(), t)
			if archived {
				arch, err := t.Archived(cmd.Context())
				if err != nil {
					return err
				}
				for _, a := range arch {
					entries = append(entries, TimelineEntry{Instant: string(a.Instant.Time), Action: string(a.Instant.Action),
						State: a.Instant.State.String(), CompletionTime: string(a.Instant.Completion), Archived: true})
				}
				sort.SliceStable(entries, func(i, j int) bool {
					if entries[i].Instant != entries[j].Instant {
						return entries[i].Instant < entries[j].Instant
					}
					return stateRank(entries[i].State) < stateRank(entries[j].State)
				})
			}
			if format == "json" {
				return writeJSON(e.stdout, entries)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "INSTANT\tACTION\tSTATE\tCOMPLETED\tOPERATION\tBYTES\tFILES ADDED\tFILES UPDATED\tPARTITIONS\tRECORDS\tUPDATED\tERRORS\tARCHIVED")
			n := func(v *int64) string {
				if v == nil {
					return ""
				}
				return strconv.FormatInt(*v, 10)
			}
			for _, en := range entries {
				arch := ""
				if en.Archived {
					arch = "yes"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", en.Instant, en.Action, en.State, en.CompletionTime,
					strings.ToLower(en.Operation), n(en.TotalBytesWritten), n(en.TotalFilesAdded), n(en.TotalFilesUpdated), n(en.TotalPartitionsWritten),
					n(en.TotalRecordsWritten), n(en.TotalUpdateRecordsWritten), n(en.TotalErrors), arch)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "storage setting (fs.s3a.*, fs.gs.*, fs.azure.*), key=value (repeatable)")
	cmd.Flags().BoolVar(&archived, "archived", false, "include archived instants")
	return cmd
}

func timelineEntries(ctx context.Context, t *hudi.Table) []TimelineEntry {
	m := t
	entries := []TimelineEntry{}
	for _, in := range m.Timeline().Instants {
		en := TimelineEntry{Instant: string(in.Time), Action: string(in.Action),
			State: in.State.String(), CompletionTime: string(in.Completion)}
		if en.CompletionTime == "" && in.IsCompleted() {
			// Table version 6 records no completion time: Java's v6 timeline takes the
			// completed file's modification time (HoodieInstant's stateTransitionTime).
			if f, ok := in.File(spec.StateCompleted); ok {
				if fi, err := m.Storage().Stat(ctx, f); err == nil {
					en.CompletionTime = fi.ModTime.Local().Format("20060102150405.000")
					en.CompletionTime = strings.Replace(en.CompletionTime, ".", "", 1)
				}
			}
		}
		switch in.Action {
		case spec.ActionCommit, spec.ActionDeltaCommit, spec.ActionReplaceCommit:
			if in.IsCompleted() {
				if cm, err := m.CommitMetadata(ctx, in); err == nil {
					addCommitStats(&en, cm)
				}
			}
		}
		entries = append(entries, en)
	}
	return entries
}

// addCommitStats fills an entry with a commit's operation and the sums of hudi-cli's
// `commits show` (CommitsCommand: files added are write stats without a previous commit).
func addCommitStats(en *TimelineEntry, cm *commitmeta.CommitMetadata) {
	var bytes, added, updated, parts, records, updates, errs int64
	for _, stats := range cm.PartitionToWriteStats {
		parts++
		for _, s := range stats {
			bytes += s.TotalWriteBytes
			if s.PrevCommit == "" || s.PrevCommit == commitmeta.NullCommit {
				added++
			} else {
				updated++
			}
			records += s.NumWrites
			updates += s.NumUpdateWrites
			errs += s.TotalWriteErrors
		}
	}
	en.Operation = cm.OperationType
	en.TotalBytesWritten, en.TotalFilesAdded, en.TotalFilesUpdated = &bytes, &added, &updated
	en.TotalPartitionsWritten, en.TotalRecordsWritten, en.TotalUpdateRecordsWritten, en.TotalErrors = &parts, &records, &updates, &errs
}

func stateRank(s string) int {
	switch s {
	case "requested":
		return 0
	case "inflight":
		return 1
	}
	return 2
}

func checkFormat(f string) error {
	if f != "text" && f != "json" {
		return usagef("--format %q: want text or json", f)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Description is the result of `hudi describe`.
type Description struct {
	Name             string            `json:"name"`
	Database         string            `json:"database,omitempty"`
	Type             string            `json:"type"`
	Version          int               `json:"version"`
	RecordKeyFields  []string          `json:"record_key_fields"`
	PartitionFields  []string          `json:"partition_fields"`
	OrderingFields   []string          `json:"ordering_fields"`
	KeyGenerator     string            `json:"key_generator,omitempty"`
	Schema           []ColumnInfo      `json:"schema"`
	Partitions       []PartitionInfo   `json:"partitions"`
	FileGroups       int               `json:"file_groups"`
	TotalBytes       int64             `json:"total_bytes"`
	LatestInstant    string            `json:"latest_instant,omitempty"`
	CompletedCommits int               `json:"completed_commits"`
	Properties       map[string]string `json:"properties"`
}

// ColumnInfo is one schema column.
type ColumnInfo struct {
	Name string `json:"name"`
	Type string `json:"type"` // Arrow's name of the type (kept for scripts that read it)
	// SparkType is Spark SQL's name of the type (DESCRIBE's data_type).
	SparkType string `json:"spark_type"`
	Nullable  bool   `json:"nullable"`
}

// PartitionInfo summarizes one partition's latest file slices.
type PartitionInfo struct {
	Path       string `json:"path"`
	FileGroups int    `json:"file_groups"`
	BaseFiles  int    `json:"base_files"`
	LogFiles   int    `json:"log_files"`
	Bytes      int64  `json:"bytes"`
}

func newDescribeCmd(e *env) *cobra.Command {
	var format string
	var sets []string
	cmd := &cobra.Command{
		Use:   "describe TABLE",
		Short: "Show a table's properties, schema, partitions, file groups and sizes",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			settings, err := e.storageSettings(sets)
			if err != nil {
				return err
			}
			d, err := describe(cmd.Context(), args[0], settings)
			if err != nil {
				return err
			}
			if format == "json" {
				return writeJSON(e.stdout, d)
			}
			return writeDescription(e.stdout, d)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringArrayVar(&sets, "set", nil, "storage setting (fs.s3a.*, fs.gs.*, fs.azure.*), key=value (repeatable)")
	return cmd
}

func describe(ctx context.Context, path string, settings map[string]string) (*Description, error) {
	t, err := hudi.Open(ctx, path, hudi.WithSettings(settings))
	if err != nil {
		return nil, err
	}
	cfg := t.Config()
	d := &Description{Name: cfg.Name(), Database: cfg.Database(), Type: string(t.Type()), Version: int(t.Version()),
		RecordKeyFields: cfg.RecordKeyFields(), PartitionFields: cfg.PartitionFields(),
		OrderingFields: cfg.OrderingFields(), KeyGenerator: cfg.KeyGenerator(),
		Properties: cfg.Properties(), Partitions: []PartitionInfo{}, Schema: []ColumnInfo{}}
	data := t.Timeline().DataInstants()
	d.CompletedCommits = len(data)
	if len(data) > 0 {
		d.LatestInstant = string(data[len(data)-1].Time)
	}
	scan, err := t.Scan(ctx, hudi.ScanOptions{})
	if err != nil {
		return nil, err
	}
	for _, f := range scan.Schema().Fields() {
		d.Schema = append(d.Schema, ColumnInfo{Name: f.Name, Type: f.Type.String(), SparkType: sparktype.Of(f.Type), Nullable: f.Nullable})
	}
	view, err := t.View(ctx, spec.InstantTime(""))
	if err != nil {
		return nil, err
	}
	byPart := map[string]*PartitionInfo{}
	for _, sl := range view.LatestSlices() {
		p := byPart[sl.Partition]
		if p == nil {
			p = &PartitionInfo{Path: sl.Partition}
			byPart[sl.Partition] = p
		}
		p.FileGroups++
		if sl.Base != nil {
			p.BaseFiles++
			p.Bytes += sl.Base.Size
		}
		for _, l := range sl.Logs {
			p.LogFiles++
			p.Bytes += l.Size
		}
	}
	for _, p := range byPart {
		d.Partitions = append(d.Partitions, *p)
		d.FileGroups += p.FileGroups
		d.TotalBytes += p.Bytes
	}
	sort.Slice(d.Partitions, func(i, j int) bool { return d.Partitions[i].Path < d.Partitions[j].Path })
	return d, nil
}

func writeDescription(w io.Writer, d *Description) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	name := d.Name
	if d.Database != "" {
		name = d.Database + "." + d.Name
	}
	fmt.Fprintf(tw, "Table:\t%s\n", name)
	fmt.Fprintf(tw, "Type:\t%s\n", d.Type)
	fmt.Fprintf(tw, "Table version:\t%d\n", d.Version)
	key := strings.Join(d.RecordKeyFields, ", ")
	if key == "" {
		key = "(none: keys are generated)" // Hudi 0.14's tables without primaryKey
	}
	fmt.Fprintf(tw, "Record key:\t%s\n", key)
	fmt.Fprintf(tw, "Partitioned by:\t%s\n", orNone(strings.Join(d.PartitionFields, ", ")))
	fmt.Fprintf(tw, "Ordering field:\t%s\n", orNone(strings.Join(d.OrderingFields, ", ")))
	fmt.Fprintf(tw, "Key generator:\t%s\n", orNone(d.KeyGenerator))
	fmt.Fprintf(tw, "Commits:\t%d (latest %s)\n", d.CompletedCommits, orNone(d.LatestInstant))
	fmt.Fprintf(tw, "File groups:\t%d in %d partition(s), %d bytes\n", d.FileGroups, len(d.Partitions), d.TotalBytes)
	fmt.Fprintln(tw, "\nSchema:")
	for _, c := range d.Schema {
		nn := ""
		if !c.Nullable {
			nn = "\tNOT NULL"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\n", c.Name, c.SparkType, nn)
	}
	if len(d.Partitions) > 0 {
		fmt.Fprintln(tw, "\nPartitions:\n  PATH\tFILE GROUPS\tBASE\tLOGS\tBYTES")
		for _, p := range d.Partitions {
			path := p.Path
			if path == "" {
				path = "(non-partitioned)"
			}
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%d\t%d\n", path, p.FileGroups, p.BaseFiles, p.LogFiles, p.Bytes)
		}
	}
	if len(d.Properties) > 0 {
		fmt.Fprintln(tw, "\nProperties:")
		keys := make([]string, 0, len(d.Properties))
		for k := range d.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(tw, "  %s\t%s\n", k, d.Properties[k])
		}
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
