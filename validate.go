package hudi

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/services/archive"
	"github.com/hudi-go/hudi/internal/services/clean"
	"github.com/hudi-go/hudi/internal/services/clustering"
	"github.com/hudi-go/hudi/internal/services/compaction"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/timeline"
	"github.com/hudi-go/hudi/internal/write"
)

// validateServiceSettings checks, before a write creates its instant, every setting that
// the inline table services after the commit parse: a setting they would refuse must
// refuse the write instead, or a retried write would commit its data twice.
//
// Java checks some of these when it builds the write config, whatever the services do
// (HoodieWriteConfig.Builder.validate in 0.14: keep.max.commits > keep.min.commits >
// cleaner.commits.retained, a known cleaner policy, not both hoodie.compact.inline and
// hoodie.compact.schedule.inline; HoodieClusteringConfig.Builder: not both
// hoodie.clustering.inline and hoodie.clustering.schedule.inline): those are checked
// unconditionally here too. The rest are hudi-go's own option checks of the services the
// settings enable (clean, archive, clustering, compaction), run early.
func (t *Table) validateServiceSettings(cfg *config.Config) error {
	var errs []error
	add := func(what string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", what, err))
		}
	}
	add("archival", config.ValidateArchival(cfg))
	// Inline services the table's timeline layout does not support yet: refused when
	// asked for explicitly; the defaults (automatic clean and archival) are skipped.
	for _, svc := range []struct {
		key config.Key
		op  timeline.Operation
	}{{config.InlineCompact, timeline.OpCompaction}, {config.ScheduleInlineCompact, timeline.OpCompaction},
		{config.InlineClustering, timeline.OpClustering}, {config.ScheduleInlineClustering, timeline.OpClustering},
		{config.AutoClean, timeline.OpClean}, {config.AutoArchive, timeline.OpArchive}} {
		if cfg.IsSet(svc.key) && cfg.Bool(svc.key) {
			add(svc.key.Name+"=true", t.current().CheckLayoutWrites(svc.op))
		}
	}
	if cfg.Bool(config.InlineCompact) && cfg.Bool(config.ScheduleInlineCompact) {
		errs = append(errs, fmt.Errorf("config: either %s or %s can be true, not both (as HoodieWriteConfig validates)",
			config.InlineCompact.Name, config.ScheduleInlineCompact.Name))
	}
	if cfg.Bool(config.InlineClustering) && cfg.Bool(config.ScheduleInlineClustering) {
		errs = append(errs, fmt.Errorf("config: either %s or %s can be true, not both (as HoodieClusteringConfig validates)",
			config.InlineClustering.Name, config.ScheduleInlineClustering.Name))
	}
	if cfg.Bool(config.AutoClean) {
		_, err := clean.OptionsFromConfig(cfg)
		add("inline clean ("+config.AutoClean.Name+"=true)", err)
	}
	if cfg.Bool(config.AutoArchive) {
		_, err := archive.OptionsFromConfig(cfg)
		add("inline archival ("+config.AutoArchive.Name+"=true)", err)
	}
	if cfg.Bool(config.InlineClustering) || cfg.Bool(config.ScheduleInlineClustering) {
		_, err := clustering.OptionsFromConfig(cfg)
		add("inline clustering", err)
	}
	if t.current().Type == spec.MergeOnRead && (cfg.Bool(config.InlineCompact) || cfg.Bool(config.ScheduleInlineCompact)) {
		_, err := compaction.OptionsFromConfig(cfg)
		add("inline compaction", err)
		trigger := CompactionTrigger{Strategy: cfg.String(config.InlineCompactTriggerStrategy)}
		switch strings.ToUpper(trigger.Strategy) {
		case "", "NUM_COMMITS", "NUM_COMMITS_AFTER_LAST_REQUEST", "TIME_ELAPSED", "NUM_OR_TIME", "NUM_AND_TIME":
		default:
			add("inline compaction", fmt.Errorf("%s=%q: want NUM_COMMITS, NUM_COMMITS_AFTER_LAST_REQUEST, TIME_ELAPSED, NUM_OR_TIME or NUM_AND_TIME",
				config.InlineCompactTriggerStrategy.Name, trigger.Strategy))
		}
	}
	return errors.Join(errs...)
}

// validateIndexSettings refuses the index settings hudi-go would otherwise accept and
// ignore: a custom index class (hoodie.index.class, which Java lets take precedence over
// hoodie.index.type), the BUCKET index's CONSISTENT_HASHING engine (hudi-go implements the
// SIMPLE engine's fixed bucket count only), and a bucket count that is not positive (it
// used to become the default 256 silently).
func validateIndexSettings(cfg *config.Config) error {
	var errs []error
	if c := strings.TrimSpace(cfg.String(config.IndexClass)); c != "" {
		errs = append(errs, fmt.Errorf("%s=%s: custom index classes are %w (use %s)", config.IndexClass.Name, c, ErrUnsupported, config.IndexType.Name))
	}
	if strings.EqualFold(strings.TrimSpace(cfg.String(config.IndexType)), "BUCKET") {
		if e := cfg.String(config.BucketIndexEngineType); strings.EqualFold(e, "CONSISTENT_HASHING") {
			errs = append(errs, fmt.Errorf("%s=%s: the BUCKET index's consistent-hashing engine is %w (SIMPLE only)", config.BucketIndexEngineType.Name, e, ErrUnsupported))
		}
	}
	if cfg.IsSet(config.BucketIndexNumBuckets) {
		if n := cfg.Int(config.BucketIndexNumBuckets); n <= 0 {
			errs = append(errs, fmt.Errorf("%s=%d: the number of buckets must be positive", config.BucketIndexNumBuckets.Name, n))
		}
	}
	return errors.Join(errs...)
}

// ServiceError is the error of a write that committed but whose inline table service
// (compaction, clustering, clean or archival) failed after the commit. The write's data
// is in the table: retrying the write would write it twice. The CLI exits with
// ExitCommittedServiceFailed (3) and prints the write's result.
type ServiceError struct {
	Instant string // the committed write's instant
	Err     error
}

func (e *ServiceError) Error() string {
	return fmt.Sprintf("write %s committed; table service after it failed: %v", e.Instant, e.Err)
}

func (e *ServiceError) Unwrap() error { return e.Err }

// checkTableSettings refuses settings that contradict the table or the operation, each
// error naming the setting, the value given and the table's (or the operation's) value.
//
// Java's rules (HoodieWriterUtils.validateTableConfig, Hudi 0.14, run on the datasource
// options of an append to an existing table): a given key that hoodie.properties also
// holds must have the stored value (compared case-insensitively, as Spark's default
// resolver does); hoodie.datasource.write.recordkey.field must equal
// hoodie.table.recordkey.fields, hoodie.datasource.write.precombine.field
// hoodie.table.precombine.field and hoodie.datasource.write.keygenerator.class
// hoodie.table.keygenerator.class (exact strings).
//
// hudi-go's own rules, where Java 0.14 takes the table's value and ignores the option
// (UNVERIFIED: HoodieSparkSqlWriter merges the table config over the options): the
// table type (hoodie.datasource.write.table.type), the partition path fields
// (hoodie.datasource.write.partitionpath.field, compared without CustomKeyGenerator's
// ":TYPE" suffixes), and hoodie.datasource.write.operation against the operation asked for.
func checkTableSettings(tc *table.Config, typ spec.TableType, cfg *config.Config, op write.Operation) error {
	var errs []error
	conflict := func(key, given, stored, what string) {
		errs = append(errs, fmt.Errorf("%s=%s contradicts %s%s", key, given, what, stored))
	}
	explicit := cfg.Explicit()
	keys := make([]string, 0, len(explicit))
	for k := range explicit {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == table.KeyPopulateMetaFields {
			// The writer's own check gives Java's message for it (HoodieTableMetaClient:
			// "already disabled for the table. Can't be re-enabled back").
			continue
		}
		if stored, ok := tc.Props.Get(k); ok && !strings.EqualFold(strings.TrimSpace(stored), strings.TrimSpace(explicit[k])) {
			conflict(k, explicit[k], stored, "the table's hoodie.properties value ")
		}
	}
	exact := func(k config.Key, tableKey string) {
		given, ok := explicit[k.Name]
		stored, has := tc.Props.Get(tableKey)
		if ok && has && given != stored {
			conflict(k.Name, given, stored, "the table's "+tableKey+"=")
		}
	}
	exact(config.RecordKeyField, table.KeyRecordKeyFields)
	if given, ok := explicit[config.RecordKeyField.Name]; ok && strings.TrimSpace(given) != "" && len(tc.RecordKeyFields()) == 0 {
		// The table generates its keys; a key field would not be used.
		errs = append(errs, fmt.Errorf("%s=%s contradicts the table, whose record keys are generated (it has no %s)", config.RecordKeyField.Name, given, table.KeyRecordKeyFields))
	}
	exact(config.PrecombineField, table.KeyPrecombineField)
	exact(config.KeyGeneratorClass, table.KeyKeyGeneratorClass)
	if given, ok := explicit[config.WriteTableType.Name]; ok && !strings.EqualFold(given, string(typ)) {
		conflict(config.WriteTableType.Name, given, string(typ), "the table's "+table.KeyType+"=")
	}
	if given, ok := explicit[config.PartitionPathField.Name]; ok {
		stripped := func(fields []string) string {
			out := make([]string, len(fields))
			for i, f := range fields {
				f = strings.TrimSpace(f)
				if j := strings.IndexByte(f, ':'); j >= 0 {
					f = f[:j]
				}
				out[i] = f
			}
			return strings.Join(out, ",")
		}
		if stripped(strings.Split(given, ",")) != stripped(tc.PartitionFieldsRaw()) && !(given == "" && len(tc.PartitionFieldsRaw()) == 0) {
			conflict(config.PartitionPathField.Name, given, strings.Join(tc.PartitionFieldsRaw(), ","), "the table's "+table.KeyPartitionFields+"=")
		}
	}
	if given, ok := explicit[config.WriteTableVersion.Name]; ok {
		// A higher version was upgraded to before (Table.autoUpgrade); a lower one would
		// be a downgrade, which Java's write client does not do either (tryUpgrade only
		// upgrades; areTableVersionsCompatible lets a lower version >= 6 pass with a
		// warning and writes the table's version): refused rather than ignored.
		if v, _ := tc.Version(); given != fmt.Sprint(int(v)) {
			what := "a write does not downgrade a table (hudi downgrade TABLE --to " + given + " does)"
			if g, err := strconv.Atoi(given); err == nil && g > int(v) {
				what = "this operation does not upgrade a table (a write or hudi upgrade TABLE --to " + given + " does)"
			}
			errs = append(errs, fmt.Errorf("%s=%s: the table is version %d; %s: %w",
				config.WriteTableVersion.Name, given, v, what, write.ErrUnsupported))
		}
	}
	for _, k := range []string{"hoodie.write.partial.update.schema", table.KeyPartialUpdateMode} {
		// Hudi 1.x's partial updates (a partial write schema; IS_PARTIAL log blocks; the
		// table's partial update mode): not implemented, refused rather than ignored.
		// Version 6's PartialUpdateAvroPayload is supported (hoodie.datasource.write.payload.class).
		if given, ok := explicit[k]; ok && strings.TrimSpace(given) != "" && !strings.EqualFold(strings.TrimSpace(given), "NONE") {
			errs = append(errs, fmt.Errorf("%s=%s: Hudi 1.x's partial updates are %w", k, given, write.ErrUnsupported))
		}
	}
	if given, ok := explicit[config.RecordMergeMode.Name]; ok && tc.MergeMode() == "" {
		v, _ := tc.Version()
		errs = append(errs, fmt.Errorf("%s=%s: the table is version %d, which has no merge mode (its payload class decides how records merge)",
			config.RecordMergeMode.Name, given, v))
	}
	if given, ok := explicit[config.Operation.Name]; ok && !strings.EqualFold(given, string(op)) {
		errs = append(errs, fmt.Errorf("%s=%s contradicts the operation asked for, %s", config.Operation.Name, given, op))
	}
	return errors.Join(errs...)
}
