package config

import (
	"strings"
	"testing"
)

// FuzzSet: Set never panics, and whatever it accepts reads back through the
// typed getters and is stable (setting the stored form again stores the same).
func FuzzSet(f *testing.F) {
	for _, s := range []struct{ k, v string }{
		{"hoodie.index.type", "bloom"}, {"hoodie.parquet.max.file.size", "120MB"},
		{"hoodie.index.bloom.fpp", "1e-9"}, {"hoodie.combine.before.insert", "TRUE"},
		{"hoodie.datasource.view.type", "snapshot"}, {"hoodie.datasource.write.recordkey.field", "a, b,,"},
		{"hoodie.x", "y"}, {"", ""}, {"hoodie.keep.max.commits", "-2147483649"},
		{"hoodie.parquet.small.file.limit", "-9223372036854775808b"},
	} {
		f.Add(s.k, s.v)
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		c := New()
		if _, err := c.Set(name, value); err != nil {
			return
		}
		k, ok := Lookup(name)
		if !ok {
			return
		}
		_ = c.String(k)
		_ = c.Bool(k)
		_ = c.Int(k)
		_ = c.Long(k)
		_ = c.Double(k)
		_ = c.List(k)
		stored := c.Explicit()[k.Name]
		again := New()
		if _, err := again.Set(k.Name, stored); err != nil {
			t.Fatalf("stored form %q of %s does not validate: %v", stored, k.Name, err)
		}
		if got := again.Explicit()[k.Name]; got != stored {
			t.Fatalf("%s: normalizing %q gave %q", k.Name, stored, got)
		}
		_ = ValidateArchival(c)
	})
}

// FuzzLoadDefaultsFile: parsing arbitrary bytes never panics.
func FuzzLoadDefaultsFile(f *testing.F) {
	f.Add("# comment\nhoodie.index.type BLOOM\nhoodie.parquet.max.file.size=1GB\n")
	f.Add("include=x\n")
	f.Add("\uFEFF  =  \n\t\r\n=\nkey=\n a b c \n")
	f.Add("hoodie.combine.before.insert maybe")
	f.Fuzz(func(t *testing.T, conf string) {
		c, err := LoadDefaultsFile(strings.NewReader(conf))
		if err == nil {
			_ = c.Explicit()
		}
	})
}
