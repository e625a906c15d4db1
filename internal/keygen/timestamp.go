package keygen

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hudi-go/hudi/config"
)

// The timestamp key generator settings (TimestampKeyGeneratorConfig) are config's
// Timestamp* keys. Every key is looked up under the current prefix first, then the legacy
// deltastreamer one, then the 1.x streamer one.
var timebasedAltPrefixes = []string{"hoodie.deltastreamer.keygen.timebased.", "hoodie.streamer.keygen.timebased."}

// prop returns the value of a timebased key, trying the legacy prefixes too.
func prop(props map[string]string, key string) (string, bool) {
	if v, ok := props[key]; ok {
		return v, true
	}
	suffix := strings.TrimPrefix(key, "hoodie.keygen.timebased.")
	for _, p := range timebasedAltPrefixes {
		if v, ok := props[p+suffix]; ok {
			return v, true
		}
	}
	return "", false
}

// tsConfig is a parsed TimestampBasedAvroKeyGenerator configuration.
type tsConfig struct {
	typ string
	// toMillis converts a number in the configured unit to epoch milliseconds, as
	// TimeUnit.MILLISECONDS.convert does; nil for DATE_STRING and MIXED, where Java has no
	// unit and rejects numbers.
	toMillis func(int64) int64
	inputs   []*DatePattern // DATE_STRING / MIXED
	output   *DatePattern
	// inLoc and outLoc are nil when not configured. Java then uses the zone parsed from the
	// input (or, for numbers, the JVM default zone); we take UTC for the JVM default.
	inLoc, outLoc *time.Location
}

func newTSConfig(props map[string]string) (*tsConfig, error) {
	c := &tsConfig{}
	typ, ok := prop(props, config.TimestampType.Name)
	if !ok || strings.TrimSpace(typ) == "" {
		return nil, fmt.Errorf("timestamp key generator: %s is required (UNIX_TIMESTAMP, DATE_STRING, MIXED, EPOCHMILLISECONDS, EPOCHMICROSECONDS, SCALAR)", config.TimestampType.Name)
	}
	c.typ = strings.TrimSpace(typ)
	switch c.typ {
	case "EPOCHMILLISECONDS":
		c.toMillis = unitToMillis(time.Millisecond)
	case "EPOCHMICROSECONDS":
		c.toMillis = unitToMillis(time.Microsecond)
	case "UNIX_TIMESTAMP":
		c.toMillis = unitToMillis(time.Second)
	case "SCALAR":
		u, _ := prop(props, config.TimestampScalarTimeUnit.Name)
		if u == "" {
			u = "SECONDS"
		}
		d, ok := javaTimeUnits[strings.ToUpper(strings.TrimSpace(u))]
		if !ok {
			return nil, fmt.Errorf("timestamp key generator: %s=%q is not a java.util.concurrent.TimeUnit (NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS)", config.TimestampScalarTimeUnit.Name, u)
		}
		c.toMillis = unitToMillis(d)
	case "DATE_STRING", "MIXED":
		in, _ := prop(props, config.TimestampInputDateFormat.Name)
		if strings.TrimSpace(in) == "" {
			return nil, fmt.Errorf("timestamp key generator: %s is required when %s=%s", config.TimestampInputDateFormat.Name, config.TimestampType.Name, c.typ)
		}
		delim, _ := prop(props, config.TimestampInputDateFormatListDelimiterRegex.Name)
		delim = strings.TrimSpace(delim)
		if delim == "" {
			delim = ","
		}
		re, err := regexp.Compile(delim)
		if err != nil {
			return nil, fmt.Errorf("timestamp key generator: %s=%q is not a valid regex: %v", config.TimestampInputDateFormatListDelimiterRegex.Name, delim, err)
		}
		for _, p := range re.Split(in, -1) {
			dp, err := CompileDatePattern(strings.TrimSpace(p))
			if err != nil {
				return nil, fmt.Errorf("timestamp key generator: %s: %w", config.TimestampInputDateFormat.Name, err)
			}
			c.inputs = append(c.inputs, dp)
		}
	default:
		return nil, fmt.Errorf("timestamp key generator: %s=%q is not one of UNIX_TIMESTAMP, DATE_STRING, MIXED, EPOCHMILLISECONDS, EPOCHMICROSECONDS, SCALAR", config.TimestampType.Name, c.typ)
	}
	out, ok := prop(props, config.TimestampOutputDateFormat.Name)
	if !ok || out == "" {
		return nil, fmt.Errorf("timestamp key generator: %s is required", config.TimestampOutputDateFormat.Name)
	}
	dp, err := CompileDatePattern(out)
	if err != nil {
		return nil, fmt.Errorf("timestamp key generator: %s: %w", config.TimestampOutputDateFormat.Name, err)
	}
	c.output = dp
	// As HoodieDateTimeParser: the shared timezone key, when present, sets both sides;
	// otherwise each side has its own key; blank means unset.
	zone := func(key string) (*time.Location, error) {
		v, _ := prop(props, key)
		if strings.TrimSpace(v) == "" {
			return nil, nil
		}
		l, err := javaTimeZone(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("timestamp key generator: %s=%q: %w", key, v, err)
		}
		return l, nil
	}
	if _, ok := prop(props, config.TimestampTimezone.Name); ok {
		if c.inLoc, err = zone(config.TimestampTimezone.Name); err != nil {
			return nil, err
		}
		c.outLoc = c.inLoc
	} else {
		if c.inLoc, err = zone(config.TimestampInputTimezone.Name); err != nil {
			return nil, err
		}
		if c.outLoc, err = zone(config.TimestampOutputTimezone.Name); err != nil {
			return nil, err
		}
	}
	return c, nil
}

var javaTimeUnits = map[string]time.Duration{
	"NANOSECONDS": time.Nanosecond, "MICROSECONDS": time.Microsecond, "MILLISECONDS": time.Millisecond,
	"SECONDS": time.Second, "MINUTES": time.Minute, "HOURS": time.Hour, "DAYS": 24 * time.Hour,
}

// unitToMillis mirrors TimeUnit.MILLISECONDS.convert: finer units divide (truncating toward
// zero), coarser units multiply and saturate at Long.MIN/MAX_VALUE.
func unitToMillis(d time.Duration) func(int64) int64 {
	if d < time.Millisecond {
		div := int64(time.Millisecond / d)
		return func(v int64) int64 { return v / div }
	}
	mul := int64(d / time.Millisecond)
	return func(v int64) int64 {
		if mul == 1 {
			return v
		}
		if v > math.MaxInt64/mul {
			return math.MaxInt64
		}
		if v < math.MinInt64/mul {
			return math.MinInt64
		}
		return v * mul
	}
}

// defaultValue is what Java substitutes for a null partition value
// (TimestampBasedAvroKeyGenerator.getDefaultPartitionVal): 1L, or for DATE_STRING/MIXED that
// instant printed with the first input format in the input zone (else output zone, else GMT).
// A null therefore lands in a 1970 partition, never in __HIVE_DEFAULT_PARTITION__.
func (c *tsConfig) defaultValue() jval {
	if c.inputs == nil {
		return jval{kind: jLong, i: 1}
	}
	loc := c.inLoc
	if loc == nil {
		loc = c.outLoc
	}
	if loc == nil {
		loc = time.UTC
	}
	return jval{kind: jString, s: c.inputs[0].Format(time.UnixMilli(1).In(loc))}
}

// format turns one partition value into the formatted path part
// (TimestampBasedAvroKeyGenerator.getPartitionPath(Object)), before URL encoding and the
// hive-style prefix.
func (c *tsConfig) format(v jval) (string, error) {
	if v.kind == jNull {
		v = c.defaultValue()
	}
	var ms int64
	parsedLoc := (*time.Location)(nil)
	numeric := func(n int64) error {
		if c.toMillis == nil {
			return fmt.Errorf("%s=%s takes date strings, not the number %d (Java: %s is not specified but scalar it supplied as time value)", config.TimestampType.Name, c.typ, n, config.TimestampScalarTimeUnit.Name)
		}
		ms = c.toMillis(n)
		return nil
	}
	switch v.kind {
	case jInt, jLong, jDate:
		// A date arrives as LocalDate and Java converts its epoch day with the configured
		// unit, as odd as that is.
		if err := numeric(v.i); err != nil {
			return "", err
		}
	case jFloat, jDouble:
		// Double/Float.longValue: truncation toward zero, saturating.
		if err := numeric(javaD2L(v.f)); err != nil {
			return "", err
		}
	case jDecimal:
		// BigDecimal.longValue: drop the fraction, keep the low 64 bits.
		q := new(big.Int).Quo(v.unsc, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(v.scale, 0))), nil))
		if v.scale < 0 {
			q = new(big.Int).Mul(v.unsc, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-v.scale)), nil))
		}
		if err := numeric(low64(q)); err != nil {
			return "", err
		}
	case jString:
		if c.inputs == nil {
			// Java's Avro path throws here ("Missing input formatter"). We accept a string
			// holding a whole number instead: Spark SQL UPDATE can rewrite a numeric column as
			// a string (seen in the v9_timebasedkeygen_epochmillis fixture), and a writer must
			// still be able to place such rows.
			n, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 64)
			if err != nil {
				return "", fmt.Errorf("%s=%s needs a number, got string %q (Java: missing input formatter; set %s and use DATE_STRING)", config.TimestampType.Name, c.typ, v.s, config.TimestampInputDateFormat.Name)
			}
			ms = c.toMillis(n)
			break
		}
		var firstErr error
		ok := false
		for _, p := range c.inputs {
			r, err := p.Parse(v.s, c.inLoc)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			ms = r.Time.UnixMilli()
			// Joda: with an input zone the parsed DateTime is in that zone; without one
			// (withOffsetParsed) it is in the parsed offset, or the default zone.
			switch {
			case c.inLoc != nil:
				parsedLoc = c.inLoc
			case r.OffsetParsed:
				parsedLoc = r.Time.Location()
			default:
				parsedLoc = time.UTC
			}
			ok = true
			break
		}
		if !ok {
			return "", firstErr
		}
	case jBool:
		return "", fmt.Errorf("unexpected type for timestamp partition field: boolean")
	default:
		return "", fmt.Errorf("unexpected type for timestamp partition field")
	}
	loc := c.outLoc
	if loc == nil {
		loc = parsedLoc
	}
	if loc == nil {
		loc = time.UTC
	}
	return c.output.Format(time.UnixMilli(ms).In(loc)), nil
}

// javaD2L is Java's (long) cast of a double: NaN is 0, out-of-range saturates.
func javaD2L(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func low64(b *big.Int) int64 {
	m := new(big.Int).And(b, new(big.Int).SetUint64(math.MaxUint64))
	u := m.Uint64()
	if b.Sign() < 0 {
		// two's complement of the magnitude's low bits
		mag := new(big.Int).And(new(big.Int).Neg(b), new(big.Int).SetUint64(math.MaxUint64)).Uint64()
		return int64(-mag)
	}
	return int64(u)
}

func epochDayTime(days int64) time.Time { return time.Unix(days*86400, 0).UTC() }

// javaZoneAliases are the three-letter ids java.util.TimeZone still accepts (ZoneInfo's old
// mapping) that the IANA database lacks or means differently.
var javaZoneAliases = map[string]string{
	"PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "CST": "America/Chicago",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "CTT": "Asia/Shanghai", "ECT": "Europe/Paris",
	"AET": "Australia/Sydney", "BST": "Asia/Dhaka", "EST": "-05:00", "MST": "-07:00", "HST": "-10:00",
}

var gmtOffset = regexp.MustCompile(`^(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?$`)

// javaTimeZone resolves a java.util.TimeZone id. Java silently falls back to GMT for an
// unknown id; we report an error instead, since a mistyped zone would misplace every record.
func javaTimeZone(id string) (*time.Location, error) {
	switch id {
	case "UTC", "GMT", "UT", "Z", "Etc/UTC", "Etc/GMT", "Zulu":
		return time.UTC, nil
	}
	if a, ok := javaZoneAliases[id]; ok {
		id = a
	}
	if m := gmtOffset.FindStringSubmatch(id); m != nil {
		h, _ := strconv.Atoi(m[2])
		mi := 0
		if m[3] != "" {
			mi, _ = strconv.Atoi(m[3])
		}
		off := h*3600 + mi*60
		if m[1] == "-" {
			off = -off
		}
		return fixedZone(off), nil
	}
	if len(id) == 6 && (id[0] == '+' || id[0] == '-') && id[3] == ':' {
		p := 0
		if off, ok := parseOffset(id, &p); ok && p == len(id) {
			return fixedZone(off), nil
		}
	}
	l, err := time.LoadLocation(id)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q", id)
	}
	return l, nil
}
