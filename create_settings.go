package hudi

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hudi-go/hudi/config"
	"github.com/hudi-go/hudi/internal/format/cdc"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/table"
	"github.com/hudi-go/hudi/internal/write"
)

// Table-level keys Java persists into hoodie.properties when a table is created from
// them (HoodieTableMetaClient.PropertyBuilder, Hudi 0.14), beyond those CreateOptions
// names. Each is persisted when given; a value hudi-go cannot write yet is refused.

// persistedCreateSettings returns the given settings that create persists as they are:
// hoodie.table.timeline.timezone, hoodie.table.base.file.format, the CDC switch and mode,
// the bootstrap switches when off, hoodie.partition.metafile.use.base.format when false, and the
// timestamp key generator's settings (HoodieTableConfig.PERSISTED_CONFIG_LIST). Settings
// that would make a table hudi-go cannot write are refused.
func persistedCreateSettings(cfg *config.Config) (map[string]string, error) {
	extra := map[string]string{}
	var errs []error
	for k, v := range cfg.Explicit() {
		switch {
		case strings.HasPrefix(k, "hoodie.keygen.timebased."):
			extra[k] = v
		case k == config.TimelineTimezone.Name:
			extra[k] = strings.ToUpper(v)
		case k == config.BaseFileFormat.Name:
			if !strings.EqualFold(v, "PARQUET") {
				errs = append(errs, fmt.Errorf("%s=%s: only PARQUET base files are %w", k, v, write.ErrUnsupported))
				continue
			}
			extra[k] = "PARQUET"
		case k == config.CDCEnabled.Name:
			on := strings.EqualFold(v, "true")
			extra[k] = fmt.Sprint(on)
			if !on {
				break
			}
			if mode, ok := cfg.Explicit()[config.CDCSupplementalLoggingMode.Name]; ok {
				// Java persists the mode only with CDC on, and only when given
				// (HoodieTableMetaClient.PropertyBuilder); the enum name, upper case.
				m, err := cdc.ParseMode(mode)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				extra[config.CDCSupplementalLoggingMode.Name] = m.String()
			}
			if pm, ok := cfg.Explicit()[config.PopulateMetaFields.Name]; ok && strings.EqualFold(pm, "false") {
				errs = append(errs, fmt.Errorf("%s=true with %s=false: change-data capture without meta fields is %w",
					k, config.PopulateMetaFields.Name, write.ErrUnsupported))
			}
		case k == config.CDCSupplementalLoggingMode.Name:
			// Persisted with hoodie.table.cdc.enabled=true above; meaningless without it.
		case k == config.BootstrapBasePath.Name, k == config.BootstrapIndexClass.Name:
			if strings.TrimSpace(v) != "" {
				errs = append(errs, fmt.Errorf("%s=%s: bootstrapped tables are %w", k, v, write.ErrUnsupported))
			}
		case k == config.BootstrapIndexEnable.Name:
			extra[k] = strings.ToLower(v)
		case k == config.PartitionMetafileUseBaseFormat.Name:
			if !strings.EqualFold(v, "false") {
				errs = append(errs, fmt.Errorf("%s=%s: partition metadata in base-file format is %w", k, v, write.ErrUnsupported))
				continue
			}
			extra[k] = "false"
		}
	}
	return extra, errors.Join(errs...)
}

// reconcileCreate fills o from the table keys given as settings where o leaves them
// unset (hoodie.table.name, hoodie.database.name, hoodie.table.type and its write-option
// alias, the record key, partition and precombine fields), and refuses a setting that
// contradicts what o names, with both values.
func reconcileCreate(o *CreateOptions, cfg *config.Config) error {
	var errs []error
	ex := cfg.Explicit()
	pick := func(names ...string) (string, string, bool) {
		for _, n := range names {
			if v, ok := ex[n]; ok {
				return n, v, true
			}
		}
		return "", "", false
	}
	str := func(field *string, what string, fold bool, names ...string) {
		k, v, ok := pick(names...)
		switch {
		case !ok:
		case *field == "":
			*field = v
		case *field != v && !(fold && strings.EqualFold(*field, v)):
			errs = append(errs, fmt.Errorf("%s=%s contradicts %s %s", k, v, what, *field))
		}
	}
	list := func(field *[]string, what string, names ...string) {
		k, v, ok := pick(names...)
		if !ok {
			return
		}
		var got []string
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				got = append(got, f)
			}
		}
		switch {
		case len(*field) == 0:
			*field = got
		case !slices.Equal(*field, got):
			errs = append(errs, fmt.Errorf("%s=%s contradicts %s %s", k, v, what, strings.Join(*field, ",")))
		}
	}
	str(&o.Name, "the table name", false, config.TableName.Name)
	str(&o.Database, "the database", false, config.DatabaseName.Name)
	if k, v, ok := pick(config.TableType.Name, config.WriteTableType.Name); ok {
		given, err := spec.ParseTableType(v)
		if err != nil {
			return err
		}
		if o.Type == "" {
			o.Type = string(given)
		} else if typ, err := spec.ParseTableType(o.Type); err == nil && typ != given {
			errs = append(errs, fmt.Errorf("%s=%s contradicts the table type %s", k, v, typ))
		}
	}
	list(&o.RecordKeyFields, "the record key fields", config.TableRecordKeyFields.Name, config.RecordKeyField.Name)
	list(&o.PartitionFields, "the partition fields", config.TablePartitionFields.Name, config.PartitionPathField.Name)
	str(&o.PrecombineField, "the precombine field", false, config.TablePrecombineField.Name, config.PrecombineField.Name)
	if k, v, ok := pick(table.KeyHiveStyle); ok && !strings.EqualFold(v, fmt.Sprint(o.HiveStyle)) {
		if o.HiveStyle {
			errs = append(errs, fmt.Errorf("%s=%s contradicts --hive-style", k, v))
		} else {
			o.HiveStyle = strings.EqualFold(v, "true")
		}
	}
	if k, v, ok := pick(config.TableKeyGeneratorClass.Name); ok {
		if kg, set := ex[config.KeyGeneratorClass.Name]; set && kg != v {
			errs = append(errs, fmt.Errorf("%s=%s contradicts %s=%s", k, v, config.KeyGeneratorClass.Name, kg))
		} else if !set {
			if _, err := cfg.Set(config.KeyGeneratorClass.Name, v); err != nil {
				return err
			}
		}
	}
	return errors.Join(errs...)
}
