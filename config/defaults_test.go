package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/hudi-go/hudi/internal/format/parquet"
)

func TestParseDefaultsFile(t *testing.T) {
	const conf = "\uFEFF# Default system properties included when running Hudi jobs.\n" +
		"# This is useful for setting default environmental settings.\n" +
		"\n" +
		"hoodie.datasource.write.table.type    MERGE_ON_READ\n" +
		"hoodie.index.type=bloom\n" +
		"hoodie.parquet.max.file.size = 64MB\r\n" +
		"hoodie.cleaner.commits.retained\t\t12\n" +
		"   # indented comment\n" +
		"hoodie.datasource.write.recordkey.field uuid,  ts\n" +
		"hoodie.datasource.view.type read_optimized\n" +
		"hoodie.index.type SIMPLE\n" + // a later line wins
		"hoodie.keygen.timebased.output.dateformat yyyy/MM/dd   HH\n" + // whitespace collapses, as in Java
		"hoodie.commitmeta.custom=a=b\n" + // split at the first '='
		"lonelyword\n" +
		"spark.serializer org.apache.spark.serializer.KryoSerializer\n" +
		"hoodie.table.name=trips" // no final newline
	c, warnings, err := ParseDefaultsFile(strings.NewReader(conf))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"hoodie.datasource.write.table.type":        "MERGE_ON_READ",
		"hoodie.index.type":                         "SIMPLE",
		"hoodie.parquet.max.file.size":              "67108864",
		"hoodie.cleaner.commits.retained":           "12",
		"hoodie.datasource.write.recordkey.field":   "uuid,ts",
		"hoodie.datasource.query.type":              "read_optimized",
		"hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd HH",
		"hoodie.commitmeta.custom":                  "a=b",
		"spark.serializer":                          "org.apache.spark.serializer.KryoSerializer",
		"hoodie.table.name":                         "trips",
	}
	if got := c.Explicit(); !reflect.DeepEqual(got, want) {
		t.Errorf("Explicit() =\n%v\nwant\n%v", got, want)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{
		"line 10: configuration key hoodie.datasource.view.type is deprecated",
		"line 13: unknown configuration key hoodie.commitmeta.custom",
		`line 14: ignored "lonelyword"`,
		"line 15: unknown configuration key spark.serializer",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings do not contain %q:\n%s", w, joined)
		}
	}
	if len(warnings) != 4 {
		t.Errorf("%d warnings:\n%s", len(warnings), joined)
	}

	// LoadDefaultsFile gives the same settings.
	c2, err := LoadDefaultsFile(strings.NewReader(conf))
	if err != nil || !reflect.DeepEqual(c2.Explicit(), want) {
		t.Errorf("LoadDefaultsFile = %v, %v", c2.Explicit(), err)
	}
}

func TestParseDefaultsFileErrors(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{"hoodie.index.type BLOOM\nhoodie.combine.before.insert maybe\n", `line 2: config: invalid value "maybe" for hoodie.combine.before.insert: want true or false`},
		{"hoodie.keep.max.commits=3O\n", `line 1: config: invalid value "3O" for hoodie.keep.max.commits`},
		{"include=/etc/hudi/more.conf\n", "line 1"},
		{"include = more.conf\n", "include is not supported"},
	} {
		_, err := LoadDefaultsFile(strings.NewReader(tc.conf))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadDefaultsFile(%q) error = %v, want %q", tc.conf, err, tc.want)
		}
	}
	boom := errors.New("disk gone")
	_, err := LoadDefaultsFile(iotest.TimeoutReader(iotest.OneByteReader(strings.NewReader("hoodie.index.type BLOOM\n"))))
	if err == nil {
		t.Error("read error was not reported")
	}
	_, err = LoadDefaultsFile(iotest.ErrReader(boom))
	if !errors.Is(err, boom) {
		t.Errorf("error = %v, want it to wrap %v", err, boom)
	}
}

func TestParseDefaultsFileEmptyAndLongLines(t *testing.T) {
	c, err := LoadDefaultsFile(strings.NewReader(""))
	if err != nil || len(c.Explicit()) != 0 {
		t.Errorf("empty file: %v, %v", c.Explicit(), err)
	}
	schema := strings.Repeat("x", 1<<20) // longer than bufio.Scanner's default token limit
	c, err = LoadDefaultsFile(strings.NewReader("hoodie.avro.schema=" + schema + "\n"))
	if err != nil || c.String(AvroSchema) != schema {
		t.Errorf("long line: len %d, %v", len(c.String(AvroSchema)), err)
	}
}

// The Parquet writer's own defaults (format/parquet sits beside config and cannot import
// it) are the registry's.
func TestParquetWriterDefaultsAreRegistered(t *testing.T) {
	var defaults *Config
	if got, want := parquet.DefaultCompression, defaults.String(ParquetCompressionCodec); got != want {
		t.Errorf("parquet.DefaultCompression %q, %s default %q", got, ParquetCompressionCodec.Name, want)
	}
	if got, want := int64(parquet.DefaultPageSize), defaults.Long(ParquetPageSize); got != want {
		t.Errorf("parquet.DefaultPageSize %d, %s default %d", got, ParquetPageSize.Name, want)
	}
	if got, want := int64(parquet.DefaultBlockSize), defaults.Long(ParquetBlockSize); got != want {
		t.Errorf("parquet.DefaultBlockSize %d, %s default %d", got, ParquetBlockSize.Name, want)
	}
}
