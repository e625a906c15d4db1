package upgrade

import (
	"fmt"
	"strings"

	"github.com/hudi-go/hudi/internal/format/props"
	"github.com/hudi-go/hudi/internal/keygen"
	"github.com/hudi-go/hudi/internal/spec"
	"github.com/hudi-go/hudi/internal/timeline"
)

// hoodie.properties keys the version changes touch (HoodieTableConfig).
const (
	keyVersion          = "hoodie.table.version"
	keyLayout           = "hoodie.timeline.layout.version"
	keyTimelinePath     = "hoodie.timeline.path"
	keyInitialVersion   = "hoodie.table.initial.version"
	keyMergeMode        = "hoodie.record.merge.mode"
	keyStrategyID       = "hoodie.record.merge.strategy.id"
	keyStrategyIDAlt    = "hoodie.compaction.record.merger.strategy" // RECORD_MERGE_STRATEGY_ID's alternative key
	keyPayloadClass     = "hoodie.compaction.payload.class"
	keyLegacyPayload    = "hoodie.legacy.payload.class"
	keyWritePayload     = "hoodie.datasource.write.payload.class"
	keyPartialUpdate    = "hoodie.table.partial.update.mode"
	keyPrecombine       = "hoodie.table.precombine.field"
	keyOrderingFields   = "hoodie.table.ordering.fields"
	keyKeyGenClass      = "hoodie.table.keygenerator.class"
	keyKeyGenType       = "hoodie.table.keygenerator.type"
	keyBootstrapClass   = "hoodie.bootstrap.index.class"
	keyBootstrapType    = "hoodie.bootstrap.index.type"
	keyType             = "hoodie.table.type"
	mergeEventTime      = "EVENT_TIME_ORDERING"
	mergeCommitTime     = "COMMIT_TIME_ORDERING"
	mergeCustom         = "CUSTOM"
	eventTimeStrategy   = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5" // HoodieRecordMerger.EVENT_TIME_BASED_MERGE_STRATEGY_UUID
	commitTimeStrategy  = "ce9acb64-bde0-424c-9b91-f6ebba25356d" // COMMIT_TIME_BASED_MERGE_STRATEGY_UUID
	payloadStrategy     = "00000000-0000-0000-0000-000000000000" // PAYLOAD_BASED_MERGE_STRATEGY_UUID
	payloadDefault      = "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
	payloadOverwrite    = "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
	payloadEventTime    = "org.apache.hudi.common.model.EventTimeAvroPayload"
	payloadModelPackage = "org.apache.hudi.common.model."
)

// payloadsToHandle is UpgradeDowngradeUtils.PAYLOAD_CLASSES_TO_HANDLE: the payload classes
// version 9 records as hoodie.legacy.payload.class instead of hoodie.compaction.payload.class.
var payloadsToHandle = map[string]bool{
	payloadModelPackage + "AWSDmsAvroPayload": true,
	payloadDefault:   true,
	payloadEventTime: true,
	payloadModelPackage + "debezium.MySqlDebeziumAvroPayload":         true,
	payloadModelPackage + "OverwriteNonDefaultsWithLatestAvroPayload": true,
	payloadOverwrite: true,
	payloadModelPackage + "PartialUpdateAvroPayload":             true,
	payloadModelPackage + "debezium.PostgresDebeziumAvroPayload": true,
}

// payloadClass is Hudi 1.x's HoodieTableConfig.getPayloadClass: the stored payload class,
// else the legacy one, else the writer's, else DefaultHoodieRecordPayload
// (HoodieTableConfig.DEFAULT_PAYLOAD_CLASS_NAME) — or OverwriteWithLatestAvroPayload for a
// table whose merge mode is COMMIT_TIME_ORDERING.
func payloadClass(p *props.Properties) string {
	for _, k := range []string{keyPayloadClass, keyLegacyPayload, keyWritePayload} {
		if v, ok := p.Get(k); ok && v != "" {
			return strings.ReplaceAll(v, "com.uber.hoodie", "org.apache.hudi")
		}
	}
	if v, _ := p.Get(keyMergeMode); v == mergeCommitTime {
		return payloadOverwrite
	}
	return payloadDefault
}

// customPayload is SevenToEightUpgradeHandler.isCustomPayloadClass.
func customPayload(c string) bool {
	return c != "" && c != payloadDefault && c != payloadEventTime && c != payloadOverwrite
}

// ErrCustomMerge refuses a table whose payload class means merge mode CUSTOM on version 8
// and 9, which hudi-go neither reads nor writes.
var ErrCustomMerge = fmt.Errorf("merge mode CUSTOM is not supported by hudi-go")

// sixToEight changes a version 6 table's properties as Hudi 1.x's SixToSevenUpgradeHandler
// (nothing) and SevenToEightUpgradeHandler do, then sets version 8 and timeline layout 2
// (HoodieTableConfig.setTableVersion). The CUSTOM key generator's partition fields, which
// Java takes from the writer's settings, are WriterPartitionFields'.
func sixToEight(p *props.Properties) error {
	typ, _ := p.Get(keyType)
	p.Set(keyTimelinePath, timeline.DefaultTimelineFolder)
	// upgradeMergeMode.
	payload := payloadClass(p)
	precombine, _ := p.Get(keyPrecombine)
	if o, ok := p.Get(keyOrderingFields); ok && o != "" {
		precombine = o
	}
	switch {
	case customPayload(payload):
		return fmt.Errorf("payload class %s makes the upgraded table's merge mode CUSTOM: %w", payload, ErrCustomMerge)
	case strings.EqualFold(typ, string(spec.MergeOnRead)) && precombine != "":
		setMerge(p, payloadDefault, mergeEventTime, eventTimeStrategy)
	case payload == payloadDefault:
		setMerge(p, payloadDefault, mergeEventTime, eventTimeStrategy)
	default:
		setMerge(p, payloadOverwrite, mergeCommitTime, commitTimeStrategy)
	}
	// setInitialVersion: the version the table had (6).
	if v, ok := p.Get(keyVersion); ok && v != "" {
		p.Set(keyInitialVersion, v)
	} else {
		p.Set(keyInitialVersion, "6")
	}
	// upgradeKeyGeneratorType: the class stays, its type is added.
	if c, ok := p.Get(keyKeyGenClass); ok && c != "" {
		t, known := keygen.TypeOfClass(c)
		if !known {
			t = "USER_PROVIDED"
		}
		p.Set(keyKeyGenType, t)
	}
	// upgradeBootstrapIndexType, for a table that records a bootstrap index.
	if c, ok := p.Get(keyBootstrapClass); ok && c != "" {
		switch {
		case strings.HasSuffix(c, ".HFileBootstrapIndex"):
			p.Set(keyBootstrapType, "HFILE")
		case strings.HasSuffix(c, ".NoOpBootstrapIndex"):
			p.Set(keyBootstrapType, "NO_OP")
		}
	}
	setVersion(p, spec.TableVersion8)
	return nil
}

// setMerge records a payload class, merge mode and strategy id; the strategy id under
// its alternative key too, as HoodieConfig.setValue does through the upgrade's
// "add alternate keys" loop in UpgradeDowngrade.run.
func setMerge(p *props.Properties, payload, mode, strategy string) {
	p.Set(keyPayloadClass, payload)
	p.Set(keyMergeMode, mode)
	p.Set(keyStrategyID, strategy)
	p.Set(keyStrategyIDAlt, strategy)
}

// eightToNine is EightToNineUpgradeHandler for the merge modes hudi-go writes (event and
// commit time; payloads that map to partial updates or Debezium columns are CUSTOM on
// version 8 and refused before): the strategy id goes, the payload class becomes the
// legacy payload class, the precombine field becomes the ordering fields.
func eightToNine(p *props.Properties) error {
	mode, _ := p.Get(keyMergeMode)
	if mode == mergeCustom {
		return fmt.Errorf("%s=CUSTOM: %w", keyMergeMode, ErrCustomMerge)
	}
	p.Delete(keyStrategyID)
	p.Delete(keyStrategyIDAlt)
	if c, ok := p.Get(keyPayloadClass); ok && c != "" && payloadsToHandle[c] {
		p.Set(keyLegacyPayload, c)
		p.Delete(keyPayloadClass)
	}
	ordering, _ := p.Get(keyOrderingFields)
	if ordering == "" {
		ordering, _ = p.Get(keyPrecombine)
	}
	if ordering != "" {
		p.Set(keyOrderingFields, ordering)
		p.Delete(keyPrecombine)
	}
	setVersion(p, spec.TableVersion9)
	return nil
}

// nineToEight is NineToEightDowngradeHandler.
func nineToEight(p *props.Properties) error {
	p.Delete(keyPartialUpdate)
	if legacy, ok := p.Get(keyLegacyPayload); ok && payloadsToHandle[legacy] {
		p.Delete(keyLegacyPayload)
		p.Set(keyPayloadClass, legacy)
		if legacy != payloadOverwrite && legacy != payloadDefault && legacy != payloadEventTime {
			return fmt.Errorf("payload class %s makes the downgraded table's merge mode CUSTOM: %w", legacy, ErrCustomMerge)
		}
	}
	if o, ok := p.Get(keyOrderingFields); ok && o != "" {
		p.Set(keyPrecombine, o)
		p.Delete(keyOrderingFields)
	}
	setVersion(p, spec.TableVersion8)
	return nil
}

// eightToSix is EightToSevenDowngradeHandler's properties part, then SevenToSix (nothing
// for a table without a metadata table) and version 6 with timeline layout 1. Java leaves
// hoodie.timeline.path and hoodie.timeline.history.path in place (0.14 ignores them).
func eightToSix(p *props.Properties) error {
	p.Delete(keyInitialVersion)
	// unsetRecordMergeMode.
	if c, _ := p.Get(keyPayloadClass); c == "" {
		switch mode, _ := p.Get(keyMergeMode); mode {
		case mergeEventTime:
			p.Set(keyPayloadClass, payloadDefault)
		case mergeCommitTime:
			p.Set(keyPayloadClass, payloadOverwrite)
		default:
			return fmt.Errorf("downgrade: %s=%q: %w", keyMergeMode, mode, ErrCustomMerge)
		}
	}
	p.Delete(keyMergeMode)
	p.Delete(keyStrategyID)
	p.Delete(keyStrategyIDAlt)
	// downgradeKeyGeneratorType: the class from the type when only the type is recorded.
	if t, ok := p.Get(keyKeyGenType); ok && t != "" {
		if c, _ := p.Get(keyKeyGenClass); c == "" {
			if cls, known := keygen.ClassOfType(t); known {
				p.Set(keyKeyGenClass, cls)
			}
		}
	}
	p.Delete(keyKeyGenType)
	p.Delete(keyBootstrapType)
	setVersion(p, spec.TableVersion6)
	return nil
}

func setVersion(p *props.Properties, v spec.TableVersion) {
	p.Set(keyVersion, fmt.Sprint(int(v)))
	p.Set(keyLayout, fmt.Sprint(timeline.LayoutOf(v).Version()))
}

// Properties returns the properties a table of version from has after Java's handlers
// move it to version to, one version at a time (6 → 8 → 9, 9 → 8 → 6). The checksum is
// left as it was: it covers the table and database names only.
func Properties(p *props.Properties, from, to spec.TableVersion) (*props.Properties, error) {
	out := p.Clone()
	v := from
	for v != to {
		var err error
		switch {
		case v == spec.TableVersion6 && to > v:
			err, v = sixToEight(out), spec.TableVersion8
		case v == spec.TableVersion8 && to > v:
			err, v = eightToNine(out), spec.TableVersion9
		case v == spec.TableVersion9 && to < v:
			err, v = nineToEight(out), spec.TableVersion8
		case v == spec.TableVersion8 && to < v:
			err, v = eightToSix(out), spec.TableVersion6
		default:
			return nil, fmt.Errorf("table version %d to %d: hudi-go moves tables between versions 6, 8 and 9", from, to)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// keyPartitionFields is HoodieTableConfig.PARTITION_FIELDS.
const keyPartitionFields = "hoodie.table.partition.fields"

// WriterPartitionFields applies, to the properties p of a table moved from version from
// to version to, what Java's handlers do with the writer's
// hoodie.datasource.write.partitionpath.field (writerField, "" when not set) for a table
// whose key generator is CUSTOM or CUSTOM_AVRO: an upgrade to layout 2
// (SevenToEightUpgradeHandler.upgradePartitionFields) records the writer's fields with
// their ":TYPE" suffixes, which 1.x's custom key generators read from the table; a
// downgrade to layout 1 (EightToSevenDowngradeHandler.downgradePartitionFields: the
// table's getPartitionFieldProp) records them without the types, as 0.14 wrote them.
// Without a writer field, or for another key generator, p is unchanged (as in Java).
func WriterPartitionFields(p *props.Properties, from, to spec.TableVersion, writerField string) {
	if strings.TrimSpace(writerField) == "" {
		return
	}
	cls, _ := p.Get(keyKeyGenClass)
	if cls == "" {
		if t, _ := p.Get(keyKeyGenType); t != "" {
			cls, _ = keygen.ClassOfType(t)
		}
	}
	if t, ok := keygen.TypeOfClass(cls); !ok || t != keygen.TypeCustom {
		return
	}
	switch before, after := timeline.LayoutOf(from).Version(), timeline.LayoutOf(to).Version(); {
	case before == 1 && after == 2:
		p.Set(keyPartitionFields, writerField)
	case before == 2 && after == 1:
		fields, _ := p.Get(keyPartitionFields)
		var names []string
		for _, f := range strings.Split(fields, ",") {
			if f == "" {
				continue
			}
			name, _, _ := strings.Cut(f, ":")
			names = append(names, name)
		}
		p.Set(keyPartitionFields, strings.Join(names, ","))
	}
}
