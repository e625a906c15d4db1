package commitmeta

import (
	"fmt"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// EncodeJSON encodes m as Java Hudi 0.14/0.15 writes v6 commit metadata: Jackson's default
// pretty printer ("key" : value, two-space indent per object level, arrays inline as
// "[ a, b ]", empty containers "{ }" and "[ ]", no trailing newline) with the properties
// in the order Java emits them. Map entries are ordered as a java.util.HashMap of that
// size iterates (bucket order of the String hash), which reproduces Java's bytes whenever
// no two keys collide in a bucket; readers do not depend on the order.
//
// Null conventions follow Java: an empty Path or TempPath, nil MinEventTime/MaxEventTime,
// RuntimeStats and CDCStats are written as null, and an empty PrevCommit as "null". The
// HoodieDeltaWriteStat fields (logVersion, logOffset, baseFile, logFiles, recordsStats)
// are written only for log writes (IsLogWrite), and partitionToReplaceFileIds only when
// m.PartitionToReplaceFileIDs is non-nil. Fields that exist only in v8+ metadata are not
// written, since a v6 reader does not know them.
func EncodeJSON(m *CommitMetadata) ([]byte, error) {
	if m == nil {
		return nil, fmt.Errorf("encode commit metadata: nil metadata")
	}
	partitions := make([]member, 0, len(m.PartitionToWriteStats))
	for _, p := range javaHashMapOrder(m.PartitionToWriteStats) {
		stats := m.PartitionToWriteStats[p]
		list := make(jarray, 0, len(stats))
		for i := range stats {
			st := writeStatJSON(&stats[i])
			if m.Profile {
				// Java's workload profile never sets partitionPath: it is null there.
				for j := range st {
					if st[j].key == "partitionPath" {
						st[j].val = jnull{}
					}
				}
			}
			list = append(list, st)
		}
		partitions = append(partitions, member{p, list})
	}
	extra := make(jobject, 0, len(m.ExtraMetadata))
	for _, k := range javaHashMapOrder(m.ExtraMetadata) {
		extra = append(extra, member{k, jstring(m.ExtraMetadata[k])})
	}
	top := jobject{
		{"partitionToWriteStats", jobject(partitions)},
		{"compacted", jbool(m.Compacted)},
		{"extraMetadata", extra},
		{"operationType", nullableString(m.OperationType)},
	}
	if m.PartitionToReplaceFileIDs != nil {
		replaced := make(jobject, 0, len(m.PartitionToReplaceFileIDs))
		for _, p := range javaHashMapOrder(m.PartitionToReplaceFileIDs) {
			replaced = append(replaced, member{p, stringArray(m.PartitionToReplaceFileIDs[p])})
		}
		top = append(top, member{"partitionToReplaceFileIds", replaced})
	}
	var w jsonWriter
	w.value(top)
	return w.buf, nil
}

func writeStatJSON(s *WriteStat) jobject {
	prev := s.PrevCommit
	if prev == "" {
		prev = NullCommit
	}
	o := jobject{
		{"fileId", jstring(s.FileID)},
		{"path", nullableString(s.Path)},
		{"cdcStats", int64Map(s.CDCStats)},
		{"prevCommit", jstring(prev)},
		{"numWrites", jint(s.NumWrites)},
		{"numDeletes", jint(s.NumDeletes)},
		{"numUpdateWrites", jint(s.NumUpdateWrites)},
		{"numInserts", jint(s.NumInserts)},
		{"totalWriteBytes", jint(s.TotalWriteBytes)},
		{"totalWriteErrors", jint(s.TotalWriteErrors)},
		{"tempPath", nullableString(s.TempPath)},
		{"partitionPath", jstring(s.PartitionPath)},
		{"totalLogRecords", jint(s.TotalLogRecords)},
		{"totalLogFilesCompacted", jint(s.TotalLogFilesCompacted)},
		{"totalLogSizeCompacted", jint(s.TotalLogSizeCompacted)},
		{"totalUpdatedRecordsCompacted", jint(s.TotalUpdatedRecordsCompacted)},
		{"totalLogBlocks", jint(s.TotalLogBlocks)},
		{"totalCorruptLogBlock", jint(s.TotalCorruptLogBlock)},
		{"totalRollbackBlocks", jint(s.TotalRollbackBlocks)},
		{"fileSizeInBytes", jint(s.FileSizeInBytes)},
		{"minEventTime", nullableInt(s.MinEventTime)},
		{"maxEventTime", nullableInt(s.MaxEventTime)},
	}
	if rs := s.RuntimeStats; rs != nil {
		o = append(o, member{"runtimeStats", jobject{
			{"totalScanTime", jint(rs.TotalScanTime)},
			{"totalUpsertTime", jint(rs.TotalUpsertTime)},
			{"totalCreateTime", jint(rs.TotalCreateTime)},
		}})
	} else {
		o = append(o, member{"runtimeStats", jnull{}})
	}
	if s.IsLogWrite() {
		logFiles := s.LogFiles
		if logFiles == nil {
			logFiles = []string{} // Java initialises the list, so it is never null
		}
		o = append(o,
			member{"logVersion", jint(int64(s.LogVersion))},
			member{"logOffset", jint(s.LogOffset)},
			member{"baseFile", jstring(s.BaseFile)},
			member{"logFiles", stringArray(logFiles)},
			// An empty Option of column ranges, as Java serialises it.
			member{"recordsStats", jobject{{"val", jnull{}}}},
		)
	}
	return o
}

// JSON value model, just enough to print with Jackson's layout.
type (
	jvalue  any
	jstring string
	jint    int64
	jbool   bool
	jnull   struct{}
	jarray  []jvalue
	jobject []member
	member  struct {
		key string
		val jvalue
	}
)

func nullableString(s string) jvalue {
	if s == "" {
		return jnull{}
	}
	return jstring(s)
}

func nullableInt(p *int64) jvalue {
	if p == nil {
		return jnull{}
	}
	return jint(*p)
}

func stringArray(ss []string) jvalue {
	if ss == nil {
		return jnull{}
	}
	a := make(jarray, len(ss))
	for i, s := range ss {
		a[i] = jstring(s)
	}
	return a
}

func int64Map(m map[string]int64) jvalue {
	if m == nil {
		return jnull{}
	}
	o := make(jobject, 0, len(m))
	for _, k := range javaHashMapOrder(m) {
		o = append(o, member{k, jint(m[k])})
	}
	return o
}

// jsonWriter prints values in the layout of Jackson's DefaultPrettyPrinter: only objects
// add an indentation level; arrays are printed on one line unless they hold objects,
// which then open on the array's line.
type jsonWriter struct {
	buf   []byte
	level int
}

func (w *jsonWriter) newline() {
	w.buf = append(w.buf, '\n')
	for range w.level {
		w.buf = append(w.buf, ' ', ' ')
	}
}

func (w *jsonWriter) value(v jvalue) {
	switch v := v.(type) {
	case jnull:
		w.buf = append(w.buf, "null"...)
	case jbool:
		w.buf = strconv.AppendBool(w.buf, bool(v))
	case jint:
		w.buf = strconv.AppendInt(w.buf, int64(v), 10)
	case jstring:
		w.buf = appendJSONString(w.buf, string(v))
	case jarray:
		if len(v) == 0 {
			w.buf = append(w.buf, "[ ]"...)
			return
		}
		w.buf = append(w.buf, "[ "...)
		for i, e := range v {
			if i > 0 {
				w.buf = append(w.buf, ", "...)
			}
			w.value(e)
		}
		w.buf = append(w.buf, " ]"...)
	case jobject:
		if len(v) == 0 {
			w.buf = append(w.buf, "{ }"...)
			return
		}
		w.buf = append(w.buf, '{')
		w.level++
		for i, m := range v {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.newline()
			w.buf = appendJSONString(w.buf, m.key)
			w.buf = append(w.buf, " : "...)
			w.value(m.val)
		}
		w.level--
		w.newline()
		w.buf = append(w.buf, '}')
	}
}

// appendJSONString quotes s as Jackson does: '"' and '\\' escaped, control characters as
// \b \t \n \f \r or \u00XX (upper-case hex), everything else (including '/' and non-ASCII)
// written as UTF-8. Invalid UTF-8 becomes U+FFFD, since a Java string cannot hold it.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// javaHashMapOrder returns the keys of m in the order a java.util.HashMap filled with
// them iterates: by bucket, the bucket being the spread String.hashCode masked by the
// table size. The table starts at 16 buckets and doubles whenever the entry count passes
// three quarters of it. Keys sharing a bucket (whose Java order is insertion order,
// unknown here) are sorted.
func javaHashMapOrder[V any](m map[string]V) []string {
	keys := sortedKeys(m)
	buckets := uint32(16)
	for uint32(len(keys)) > buckets/4*3 {
		buckets *= 2
	}
	bucket := func(k string) uint32 {
		h := javaStringHash(k)
		return (h ^ h>>16) & (buckets - 1)
	}
	sort.SliceStable(keys, func(i, j int) bool { return bucket(keys[i]) < bucket(keys[j]) })
	return keys
}

// javaStringHash is String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over UTF-16 units,
// with 32-bit wrap-around.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + uint32(u)
	}
	return h
}
