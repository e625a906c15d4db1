package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestLookupAliases(t *testing.T) {
	for _, tc := range []struct{ alias, canonical string }{
		{"hoodie.datasource.view.type", "hoodie.datasource.query.type"},
		{"hoodie.datasource.write.storage.type", "hoodie.datasource.write.table.type"},
		{"hoodie.table.storage.type", "hoodie.table.type"},
		{"hoodie.table.ro.file.format", "hoodie.table.base.file.format"},
		{"hoodie.compaction.daybased.target", "hoodie.compaction.daybased.target.partitions"},
		{"hoodie.datasource.clustering.inline.enable", "hoodie.clustering.inline"},
		{"hoodie.datasource.clustering.async.enable", "hoodie.clustering.async.enabled"},
		{"hoodie.datasource.hive_style_partition", "hoodie.datasource.write.hive_style_partitioning"},
		{"hoodie.deltastreamer.keygen.timebased.output.dateformat", "hoodie.keygen.timebased.output.dateformat"},
		{"hoodie.streamer.keygen.timebased.timestamp.type", "hoodie.keygen.timebased.timestamp.type"},
		{"hoodie.index.type", "hoodie.index.type"},
	} {
		k, ok := Lookup(tc.alias)
		if !ok || k.Name != tc.canonical {
			t.Errorf("Lookup(%s) = %s, %v; want %s", tc.alias, k.Name, ok, tc.canonical)
		}
	}
	if _, ok := Lookup("hoodie.no.such.key"); ok {
		t.Error("Lookup of an unknown key succeeded")
	}
}

func TestSetAliasStoresCanonical(t *testing.T) {
	c := New()
	w, err := c.Set("hoodie.datasource.view.type", "read_optimized")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w, "deprecated") || !strings.Contains(w, "hoodie.datasource.query.type") {
		t.Errorf("warning = %q", w)
	}
	if got := c.String(QueryType); got != "read_optimized" {
		t.Errorf("QueryType = %q", got)
	}
	if !c.IsSet(QueryType) {
		t.Error("IsSet(QueryType) = false")
	}
	want := map[string]string{"hoodie.datasource.query.type": "read_optimized"}
	if got := c.Explicit(); !reflect.DeepEqual(got, want) {
		t.Errorf("Explicit() = %v", got)
	}
	// A Key built with the alias as its name still finds the value.
	if got := c.String(Key{Name: "hoodie.datasource.view.type", Kind: Enum}); got != "read_optimized" {
		t.Errorf("String(alias key) = %q", got)
	}
	if v, ok := c.Get("hoodie.datasource.view.type"); !ok || v != "read_optimized" {
		t.Errorf("Get(alias) = %q, %v", v, ok)
	}
}

func TestSetNormalizes(t *testing.T) {
	for _, tc := range []struct {
		k         Key
		in, store string
	}{
		{IndexType, "bloom", "BLOOM"},
		{IndexType, " Global_Simple ", "GLOBAL_SIMPLE"},
		{ParquetCompressionCodec, "SNAPPY", "snappy"},
		{WriteConcurrencyMode, "optimistic_concurrency_control", "OPTIMISTIC_CONCURRENCY_CONTROL"},
		{Operation, "BULK_INSERT", "bulk_insert"},
		{CombineBeforeInsert, "TRUE", "true"},
		{CombineBeforeUpsert, " False", "false"},
		{ParquetMaxFileSize, "120MB", "125829120"},
		{ParquetMaxFileSize, "1 gb", "1073741824"},
		{ParquetSmallFileLimit, "0", "0"},
		{ParquetSmallFileLimit, "-1", "-1"},
		{ParquetPageSize, "64k", "65536"},
		{ParquetBlockSize, "+5", "5"},
		{BloomNumEntries, " 70000 ", "70000"},
		{BloomIndexKeysPerBucket, "9000000000", "9000000000"},
		{BloomFPP, "1e-9", "1e-9"},
		{RecordKeyField, " id , ts,,", "id,ts"},
		{PrecombineField, " keep spaces ", " keep spaces "},
	} {
		c := New()
		if _, err := c.Set(tc.k.Name, tc.in); err != nil {
			t.Errorf("Set(%s, %q): %v", tc.k.Name, tc.in, err)
			continue
		}
		if got := c.Explicit()[tc.k.Name]; got != tc.store {
			t.Errorf("Set(%s, %q) stored %q, want %q", tc.k.Name, tc.in, got, tc.store)
		}
	}
}

func TestSetMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, value, want string
	}{
		{"hoodie.combine.before.insert", "yes", "true or false"},
		{"hoodie.combine.before.insert", "1", "true or false"},
		{"hoodie.combine.before.insert", "", "true or false"},
		{"hoodie.cleaner.commits.retained", "ten", "integer"},
		{"hoodie.cleaner.commits.retained", "3000000000", "integer"},
		{"hoodie.cleaner.commits.retained", "1.5", "integer"},
		{"hoodie.bloom.index.keys.per.bucket", "1e7", "64-bit integer"},
		{"hoodie.index.bloom.fpp", "often", "finite number"},
		{"hoodie.index.bloom.fpp", "NaN", "finite number"},
		{"hoodie.index.bloom.fpp", "Inf", "finite number"},
		{"hoodie.parquet.max.file.size", "big", "size in bytes"},
		{"hoodie.parquet.max.file.size", "120XB", "size in bytes"},
		{"hoodie.parquet.max.file.size", "9999999999TB", "size in bytes"},
		{"hoodie.parquet.max.file.size", "1.5GB", "size in bytes"},
		{"hoodie.index.type", "BLOOMY", "one of BLOOM, GLOBAL_BLOOM"},
		{"hoodie.parquet.compression.codec", "none", "one of gzip"},
		{"hoodie.datasource.view.type", "fast", "one of snapshot"},
	} {
		c := New()
		w, err := c.Set(tc.name, tc.value)
		if err == nil {
			t.Errorf("Set(%s, %q) succeeded (warning %q)", tc.name, tc.value, w)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.name) || !strings.Contains(msg, `"`+tc.value+`"`) || !strings.Contains(msg, tc.want) {
			t.Errorf("Set(%s, %q) error %q: want key, value and %q", tc.name, tc.value, msg, tc.want)
		}
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Value != tc.value {
			t.Errorf("Set(%s, %q) error is not a *ValueError: %v", tc.name, tc.value, err)
		}
		if len(c.Explicit()) != 0 {
			t.Errorf("Set(%s, %q) stored a value despite the error", tc.name, tc.value)
		}
	}
	// The error for an alias names both the alias and the canonical key.
	_, err := New().Set("hoodie.datasource.view.type", "fast")
	if err == nil || !strings.Contains(err.Error(), "hoodie.datasource.query.type") {
		t.Errorf("alias error = %v", err)
	}
	if _, err := New().Set("", "x"); err == nil {
		t.Error("Set with an empty key succeeded")
	}
}

func TestSetUnknownKeyPassesThrough(t *testing.T) {
	c := New()
	w, err := c.Set("hoodie.x", "anything at all")
	if err != nil {
		t.Fatal(err)
	}
	if want := "unknown configuration key hoodie.x; it is passed through"; w != want {
		t.Errorf("warning = %q, want %q", w, want)
	}
	if v, ok := c.Get("hoodie.x"); !ok || v != "anything at all" {
		t.Errorf("Get(hoodie.x) = %q, %v", v, ok)
	}
	if got := c.Explicit()["hoodie.x"]; got != "anything at all" {
		t.Errorf("Explicit()[hoodie.x] = %q", got)
	}
	// Known keys are silent.
	if w, err := c.Set("hoodie.index.type", "BLOOM"); w != "" || err != nil {
		t.Errorf("Set(hoodie.index.type) = %q, %v", w, err)
	}
}

func TestGetters(t *testing.T) {
	c := New()
	if _, err := c.SetAll(map[string]string{
		"hoodie.index.type":                        "bucket",
		"hoodie.bucket.index.num.buckets":          "16",
		"hoodie.bucket.index.hash.field":           "id, region",
		"hoodie.parquet.max.file.size":             "256MB",
		"hoodie.parquet.compression.ratio":         "0.25",
		"hoodie.combine.before.insert":             "true",
		"hoodie.datasource.write.precombine.field": "event_ts",
	}); err != nil {
		t.Fatal(err)
	}
	if got := c.String(IndexType); got != "BUCKET" {
		t.Errorf("IndexType = %q", got)
	}
	if got := c.Int(BucketIndexNumBuckets); got != 16 {
		t.Errorf("BucketIndexNumBuckets = %d", got)
	}
	if got := c.List(BucketIndexHashField); !reflect.DeepEqual(got, []string{"id", "region"}) {
		t.Errorf("BucketIndexHashField = %q", got)
	}
	if got := c.Long(ParquetMaxFileSize); got != 256<<20 {
		t.Errorf("ParquetMaxFileSize = %d", got)
	}
	if got := c.Double(ParquetCompressionRatio); got != 0.25 {
		t.Errorf("ParquetCompressionRatio = %v", got)
	}
	if !c.Bool(CombineBeforeInsert) {
		t.Error("CombineBeforeInsert = false")
	}
	if got := c.String(PrecombineField); got != "event_ts" {
		t.Errorf("PrecombineField = %q", got)
	}
	if c.IsSet(KeyGeneratorClass) {
		t.Error("IsSet(KeyGeneratorClass) = true, never set")
	}
	if v, ok := c.Get(TableName.Name); ok || v != "" {
		t.Errorf("Get(hoodie.table.name) = %q, %v; want no value", v, ok)
	}
	if v, ok := c.Get(CleanerCommitsRetained.Name); !ok || v != "10" {
		t.Errorf("Get(cleaner.commits.retained) = %q, %v", v, ok)
	}

	// A nil Config reads as defaults.
	var nilConfig *Config
	if nilConfig.Int(KeepMaxCommits) != 30 || nilConfig.IsSet(KeepMaxCommits) || len(nilConfig.Explicit()) != 0 {
		t.Error("nil Config does not read as defaults")
	}
	// A caller-built key of another kind falls back to its default, then zero.
	odd := Key{Name: "hoodie.custom.plugin.threshold", Kind: Int, Default: "7", HasDefault: true}
	if _, err := c.Set(odd.Name, "not a number"); err != nil { // unknown to the registry: passed through
		t.Fatal(err)
	}
	if got := c.Int(odd); got != 7 {
		t.Errorf("Int(custom key with bad value) = %d, want the default 7", got)
	}
}

func TestSetAll(t *testing.T) {
	t.Run("canonical beats alias", func(t *testing.T) {
		for i := 0; i < 20; i++ { // map order is random; the result must not be
			c := New()
			w, err := c.SetAll(map[string]string{
				"hoodie.datasource.view.type":  "incremental",
				"hoodie.datasource.query.type": "read_optimized",
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(QueryType); got != "read_optimized" {
				t.Fatalf("QueryType = %q", got)
			}
			if !strings.Contains(strings.Join(w, "\n"), "both set hoodie.datasource.query.type") {
				t.Fatalf("warnings = %q", w)
			}
		}
	})
	t.Run("all or nothing", func(t *testing.T) {
		c := New()
		_, _ = c.Set("hoodie.index.type", "BLOOM")
		w, err := c.SetAll(map[string]string{
			"hoodie.index.type":               "GLOBAL_BLOOM",
			"hoodie.cleaner.commits.retained": "many",
			"hoodie.keep.min.commits":         "few",
			"hoodie.something.new":            "1",
		})
		if err == nil {
			t.Fatal("SetAll with malformed values succeeded")
		}
		for _, want := range []string{"hoodie.cleaner.commits.retained", `"many"`, "hoodie.keep.min.commits", `"few"`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %s", err, want)
			}
		}
		if got := c.String(IndexType); got != "BLOOM" {
			t.Errorf("IndexType = %q: SetAll applied part of a failed batch", got)
		}
		if len(w) != 1 || !strings.Contains(w[0], "hoodie.something.new") {
			t.Errorf("warnings = %q", w)
		}
	})
}

func TestMergeLaterWins(t *testing.T) {
	a, b := New(), New()
	_, _ = a.Set("hoodie.index.type", "BLOOM")
	_, _ = a.Set("hoodie.cleaner.commits.retained", "5")
	_, _ = b.Set("hoodie.index.type", "BUCKET")
	_, _ = b.Set("hoodie.x.custom", "y")
	m := a.Merge(b)
	want := map[string]string{"hoodie.index.type": "BUCKET", "hoodie.cleaner.commits.retained": "5", "hoodie.x.custom": "y"}
	if got := m.Explicit(); !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %v, want %v", got, want)
	}
	if a.String(IndexType) != "BLOOM" || b.IsSet(CleanerCommitsRetained) {
		t.Error("Merge changed its inputs")
	}
	if got := a.Merge(nil).Explicit(); len(got) != 2 {
		t.Errorf("Merge(nil) = %v", got)
	}
	var nilConfig *Config
	if got := nilConfig.Merge(b).Explicit(); len(got) != 2 {
		t.Errorf("nil.Merge(b) = %v", got)
	}
	// Explicit returns a copy.
	e := m.Explicit()
	e["hoodie.index.type"] = "SIMPLE"
	if m.String(IndexType) != "BUCKET" {
		t.Error("Explicit exposes the Config's map")
	}
}

func TestValidateArchival(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings map[string]string
		wantErr  []string
	}{
		{"defaults", nil, nil},
		{"0.8.0 values", map[string]string{"hoodie.keep.max.commits": "128", "hoodie.keep.min.commits": "96", "hoodie.cleaner.commits.retained": "24"}, nil},
		{"max equals min", map[string]string{"hoodie.keep.max.commits": "20"},
			[]string{"hoodie.keep.max.commits=20", "hoodie.keep.min.commits=20"}},
		{"max below min", map[string]string{"hoodie.keep.max.commits": "15", "hoodie.keep.min.commits": "16", "hoodie.cleaner.commits.retained": "3"},
			[]string{"hoodie.keep.max.commits=15 must be greater than hoodie.keep.min.commits=16"}},
		{"min equals retained", map[string]string{"hoodie.cleaner.commits.retained": "20"},
			[]string{"hoodie.keep.min.commits=20 must be greater than hoodie.cleaner.commits.retained=20", "incremental", "time-travel"}},
		{"retained above min only", map[string]string{"hoodie.cleaner.commits.retained": "25"},
			[]string{"hoodie.cleaner.commits.retained=25"}},
		{"both violated", map[string]string{"hoodie.keep.max.commits": "5", "hoodie.keep.min.commits": "5", "hoodie.cleaner.commits.retained": "10"},
			[]string{"hoodie.keep.max.commits=5", "hoodie.cleaner.commits.retained=10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New()
			if _, err := c.SetAll(tc.settings); err != nil {
				t.Fatal(err)
			}
			err := ValidateArchival(c)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("ValidateArchival: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("ValidateArchival succeeded")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	if err := ValidateArchival(nil); err != nil {
		t.Errorf("ValidateArchival(nil) = %v; defaults are valid", err)
	}
}

// Storage settings (Hadoop's fs.* keys) are the storage backend's to validate: no
// "unknown key" warning, and they are kept for it.
func TestStorageSettingsPassWithoutWarning(t *testing.T) {
	c := New()
	for k, v := range map[string]string{"fs.s3a.endpoint": "http://127.0.0.1:7070", "fs.s3a.path.style.access": "true"} {
		w, err := c.Set(k, v)
		if err != nil || w != "" {
			t.Errorf("Set(%s) = %q, %v", k, w, err)
		}
	}
	if got := c.Explicit()["fs.s3a.endpoint"]; got != "http://127.0.0.1:7070" {
		t.Errorf("Explicit()[fs.s3a.endpoint] = %q", got)
	}
}
