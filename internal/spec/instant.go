// Package spec holds the pure values of Hudi's on-disk model: instant times, actions,
// states, table types and versions, and the names of base and log files. Everything here
// parses and formats; nothing does I/O.
package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// InstantTime is a Hudi instant time: 17 digits yyyyMMddHHmmssSSS (14-digit legacy
// instants are also valid). Instants order as strings, which is why it is a string type:
// comparisons need no parsing.
type InstantTime string

const (
	instantLayoutMillis = "20060102150405.000"
	instantLayoutSecs   = "20060102150405"
)

// ZeroInstant sorts before every real instant; "from the beginning" for incremental queries.
const ZeroInstant InstantTime = "00000000000000000"

// ParseInstantTime validates a 14- or 17-digit instant time.
func ParseInstantTime(s string) (InstantTime, error) {
	if len(s) != 17 && len(s) != 14 {
		return "", fmt.Errorf("instant time %q: want 17 digits (yyyyMMddHHmmssSSS) or 14", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", fmt.Errorf("instant time %q: non-digit at position %d", s, i)
		}
	}
	return InstantTime(s), nil
}

// ParseFileInstant validates the instant of a timeline, base or log file name: what
// ParseInstantTime accepts, and also the instants of a metadata table, which Java 0.14
// forms by appending 3-digit operation suffixes to a 14- or 17-digit instant
// (HoodieTableMetadataUtil: "010" and up for a partition's initialization, "001" for a
// compaction, "002" for a clean, "003" for a restore, "006" for a rollback; a suffix can
// be added twice, e.g. a compaction after an initialization: "…010001"). They order as
// strings, as Java compares them.
func ParseFileInstant(s string) (InstantTime, error) {
	if len(s) > 17 && (len(s)-17)%3 == 0 && len(s) <= 26 {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return "", fmt.Errorf("instant time %q: non-digit at position %d", s, i)
			}
		}
		return InstantTime(s), nil
	}
	return ParseInstantTime(s)
}

// Less reports whether t sorts before u. 14-digit instants compare as if padded with
// "000" milliseconds, as Java does when it normalizes them.
func (t InstantTime) Less(u InstantTime) bool { return t.Compare(u) < 0 }

// Compare returns -1, 0 or +1.
func (t InstantTime) Compare(u InstantTime) int {
	return strings.Compare(t.normalized(), u.normalized())
}

func (t InstantTime) normalized() string {
	if len(t) == 14 {
		return string(t) + "000"
	}
	return string(t)
}

// Int returns the instant as a number, as Java's Long.parseLong gives the version ids of
// schema evolution (InternalSchema versions are the instant times that made them); a
// 14-digit instant is padded with "000" milliseconds so that it orders with 17-digit ones.
func (t InstantTime) Int() (int64, error) {
	n, err := strconv.ParseInt(t.normalized(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("instant time %q is not a number", string(t))
	}
	return n, nil
}

// String returns the instant as written.
func (t InstantTime) String() string { return string(t) }

// Time interprets the instant as a wall-clock time in loc (the timeline's time zone).
func (t InstantTime) Time(loc *time.Location) (time.Time, error) {
	s := string(t)
	if len(s) > 17 {
		s = s[:17] // a metadata-table instant: its data-table instant, suffix dropped
	}
	if len(s) == 17 {
		s = s[:14] + "." + s[14:]
		return time.ParseInLocation(instantLayoutMillis, s, loc)
	}
	return time.ParseInLocation(instantLayoutSecs, s, loc)
}

// InstantTimeOf formats a wall-clock time as a 17-digit instant in loc.
func InstantTimeOf(ts time.Time, loc *time.Location) InstantTime {
	s := ts.In(loc).Format(instantLayoutMillis)
	return InstantTime(s[:14] + s[15:])
}

// ParseInstantArg accepts what users pass to --as-of and incremental bounds: a 14- or
// 17-digit instant, "yyyy-MM-dd HH:mm:ss[.SSS]" or "yyyy-MM-dd". Like Java Hudi
// (HoodieSqlCommonUtils.formatQueryInstant), the date forms are taken literally as
// timeline wall-clock text, so no time zone conversion happens here.
func ParseInstantArg(s string) (InstantTime, error) {
	s = strings.TrimSpace(s)
	if t, err := ParseInstantTime(s); err == nil {
		return t, nil
	}
	layouts := []struct{ layout, suffix string }{
		{"2006-01-02 15:04:05.000", ""},
		{"2006-01-02 15:04:05", "000"},
		{"2006-01-02", "000000000"},
	}
	for _, l := range layouts {
		if ts, err := time.Parse(l.layout, s); err == nil {
			digits := strings.NewReplacer("-", "", " ", "", ":", "", ".", "").Replace(s)
			_ = ts
			return InstantTime(digits + l.suffix), nil
		}
	}
	return "", fmt.Errorf("instant %q: want yyyyMMddHHmmssSSS, yyyy-MM-dd HH:mm:ss[.SSS] or yyyy-MM-dd", s)
}
