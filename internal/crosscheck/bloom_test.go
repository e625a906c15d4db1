package crosscheck_test

import (
	"path/filepath"
	"testing"

	"github.com/hudi-go/hudi/internal/format/bloom"
)

// Requirement 2, end to end: a base file hudi-go writes carries, for the same keys, the
// very bloom filter string Spark's file carries. (compareFooters checks it for every
// corresponding file of every compat case; this test names it and also round-trips the
// Spark filter through format/bloom.)
func TestBloomFilterMatchesSpark(t *testing.T) {
	for _, id := range []string{"cow/v6_nonpartitioned", "cow/v6_simplekeygen_nonhivestyle"} {
		t.Run(filepath.Base(id), func(t *testing.T) {
			r := buildReplica(t, id)
			for _, p := range correspondingFiles(t, r) {
				om, _, _ := footer(t, p[0])
				sm, _, _ := footer(t, p[1])
				if om[kMinKey] != sm[kMinKey] || om[kMaxKey] != sm[kMaxKey] {
					t.Fatalf("%s: key range %s..%s, Spark %s..%s: not the same key set", p[0], om[kMinKey], om[kMaxKey], sm[kMinKey], sm[kMaxKey])
				}
				if om[kBloom] != sm[kBloom] || om[kBloomType] != sm[kBloomType] {
					t.Errorf("%s: bloom filter (%s, %d chars) differs from Spark's %s (%s, %d chars)",
						filepath.Base(p[0]), om[kBloomType], len(om[kBloom]), filepath.Base(p[1]), sm[kBloomType], len(sm[kBloom]))
				}
				f, err := bloom.Deserialize(sm[kBloom], sm[kBloomType])
				if err != nil {
					t.Fatal(err)
				}
				if f.Serialize() != sm[kBloom] {
					t.Errorf("Spark's filter of %s does not round-trip through format/bloom", filepath.Base(p[1]))
				}
				t.Logf("%s = %s: %s filter, %d chars, keys %s..%s", filepath.Base(p[0]), filepath.Base(p[1]), sm[kBloomType], len(sm[kBloom]), sm[kMinKey], sm[kMaxKey])
			}
		})
	}
}
