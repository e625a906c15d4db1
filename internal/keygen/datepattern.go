package keygen

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DatePattern is a compiled Joda-Time DateTimeFormat pattern (the syntax Hudi's
// TimestampBasedKeyGenerator uses for input.dateformat and output.dateformat; it is close to
// Java's SimpleDateFormat). Go layouts cannot express every Joda pattern (e.g. "yyyyMMdd"
// digits would be read as layout elements), so patterns are compiled into tokens and
// formatted/parsed directly.
//
// Supported letters (as in Joda): G era, C century, Y year of era, x week year, w week of week
// year, e day of week (number), E day of week (text), y year, D day of year, M month, d day,
// a AM/PM, h clock hour of half day (1-12), K hour of half day (0-11), H hour (0-23),
// k clock hour (1-24), m minute, s second, S fraction of second, z zone name, Z offset
// (Z: +0800, ZZ: +08:00, ZZZ: zone id). Text in single quotes is literal, ” is a quote, and
// any non-letter character is literal. Other letters are rejected, as Joda does.
type DatePattern struct {
	pattern string
	toks    []dateTok
}

type dateTok struct {
	letter byte   // 0 for a literal
	count  int    // repeat count of the letter
	lit    string // literal text
}

// CompileDatePattern compiles a Joda/SimpleDateFormat pattern.
func CompileDatePattern(pattern string) (*DatePattern, error) {
	p := &DatePattern{pattern: pattern}
	addLit := func(s string) {
		if n := len(p.toks); n > 0 && p.toks[n-1].letter == 0 {
			p.toks[n-1].lit += s
			return
		}
		p.toks = append(p.toks, dateTok{lit: s})
	}
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			// Quoted literal; '' inside or outside quotes is one quote.
			if i+1 < len(pattern) && pattern[i+1] == '\'' {
				addLit("'")
				i += 2
				continue
			}
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(pattern) {
				if pattern[j] == '\'' {
					if j+1 < len(pattern) && pattern[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				b.WriteByte(pattern[j])
				j++
			}
			if !closed {
				return nil, fmt.Errorf("date pattern %q: unterminated quote at offset %d", pattern, i)
			}
			addLit(b.String())
			i = j
		case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			if !strings.ContainsRune("GCYxweEyDMdahKHkmsSzZ", rune(c)) {
				return nil, fmt.Errorf("date pattern %q: illegal pattern letter %q at offset %d", pattern, c, i)
			}
			j := i
			for j < len(pattern) && pattern[j] == c {
				j++
			}
			p.toks = append(p.toks, dateTok{letter: c, count: j - i})
			i = j
		default:
			addLit(string(c))
			i++
		}
	}
	return p, nil
}

// String returns the source pattern.
func (p *DatePattern) String() string { return p.pattern }

var (
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
	dayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
)

// pad renders v with at least n digits, sign first, as Joda's padded numbers do.
func pad(v int64, n int) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	if len(s) < n {
		s = strings.Repeat("0", n-len(s)) + s
	}
	if neg {
		s = "-" + s
	}
	return s
}

func isoWeekday(t time.Time) int {
	wd := int(t.Weekday())
	if wd == 0 {
		return 7
	}
	return wd
}

// Format renders t (already in the wanted zone) with the pattern. Joda has millisecond
// precision, so fractions print the milliseconds followed by zeros.
func (p *DatePattern) Format(t time.Time) string {
	var b strings.Builder
	for _, tk := range p.toks {
		n := tk.count
		switch tk.letter {
		case 0:
			b.WriteString(tk.lit)
		case 'G':
			if t.Year() <= 0 {
				b.WriteString("BC")
			} else {
				b.WriteString("AD")
			}
		case 'C':
			y := t.Year()
			if y <= 0 {
				y = 1 - y
			}
			b.WriteString(pad(int64(y/100), n))
		case 'y', 'Y', 'x':
			y := t.Year()
			switch tk.letter {
			case 'Y':
				if y <= 0 {
					y = 1 - y
				}
			case 'x':
				y, _ = t.ISOWeek()
			}
			if n == 2 {
				yy := y % 100
				if yy < 0 {
					yy += 100
				}
				b.WriteString(pad(int64(yy), 2))
			} else {
				b.WriteString(pad(int64(y), n))
			}
		case 'w':
			_, w := t.ISOWeek()
			b.WriteString(pad(int64(w), n))
		case 'e':
			b.WriteString(pad(int64(isoWeekday(t)), n))
		case 'E':
			name := dayNames[isoWeekday(t)-1]
			if n < 4 {
				name = name[:3]
			}
			b.WriteString(name)
		case 'D':
			b.WriteString(pad(int64(t.YearDay()), n))
		case 'M':
			switch {
			case n >= 4:
				b.WriteString(monthNames[t.Month()-1])
			case n == 3:
				b.WriteString(monthNames[t.Month()-1][:3])
			default:
				b.WriteString(pad(int64(t.Month()), n))
			}
		case 'd':
			b.WriteString(pad(int64(t.Day()), n))
		case 'a':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b.WriteString(pad(int64(h), n))
		case 'K':
			b.WriteString(pad(int64(t.Hour()%12), n))
		case 'H':
			b.WriteString(pad(int64(t.Hour()), n))
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			b.WriteString(pad(int64(h), n))
		case 'm':
			b.WriteString(pad(int64(t.Minute()), n))
		case 's':
			b.WriteString(pad(int64(t.Second()), n))
		case 'S':
			ms := pad(int64(t.Nanosecond()/1e6), 3)
			if n <= 3 {
				b.WriteString(ms[:n])
			} else {
				b.WriteString(ms + strings.Repeat("0", n-3))
			}
		case 'z':
			// Joda prints the short (or, for zzzz, long) zone name; Go only knows the
			// abbreviation, so both print that (UNVERIFIED against Joda's name tables).
			b.WriteString(t.Format("MST"))
		case 'Z':
			if n >= 3 {
				b.WriteString(zoneID(t.Location()))
				continue
			}
			_, off := t.Zone()
			sign := byte('+')
			if off < 0 {
				sign, off = '-', -off
			}
			b.WriteByte(sign)
			b.WriteString(pad(int64(off/3600), 2))
			if n == 2 {
				b.WriteByte(':')
			}
			b.WriteString(pad(int64(off%3600/60), 2))
		}
	}
	return b.String()
}

// zoneID names a location as Joda's DateTimeZone.getID would: "UTC", a region id, or a fixed
// offset "+08:00".
func zoneID(loc *time.Location) string {
	name := loc.String()
	if name == "UTC" || name == "" || name == "GMT" {
		return "UTC"
	}
	if strings.HasPrefix(name, "+") || strings.HasPrefix(name, "-") || strings.Contains(name, "/") {
		return name
	}
	_, off := time.Date(2000, 1, 1, 0, 0, 0, 0, loc).Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	return sign + pad(int64(off/3600), 2) + ":" + pad(int64(off%3600/60), 2)
}

// ParseResult is a parsed date-time: the instant and the zone Joda would attach to it.
type ParseResult struct {
	Time time.Time
	// OffsetParsed is true when the text carried a zone offset or id.
	OffsetParsed bool
}

// isNumericTok mirrors Joda's rule for which pattern letters are numbers: adjacent numeric
// fields (like "yyyyMMdd") are parsed with the fixed width of their pattern length.
func isNumericTok(t dateTok) bool {
	switch t.letter {
	case 'C', 'x', 'y', 'Y', 'c', 'w', 'e', 'D', 'd', 'h', 'H', 'k', 'K', 'm', 's', 'S':
		return true
	case 'M':
		return t.count <= 2
	}
	return false
}

// twoDigitPivot is Joda's pivot for "yy": the current year minus 30 (DateTimeFormat), giving
// a window of pivot-50 .. pivot+49.
var twoDigitPivot = time.Now().Year() - 30

// Parse reads s with the pattern. Fields missing from the pattern default to
// 1970-01-01T00:00:00.000 as in Joda. The local fields are interpreted in loc unless the
// text carries an offset or zone. The whole string must be consumed (Joda's parseDateTime).
func (p *DatePattern) Parse(s string, loc *time.Location) (ParseResult, error) {
	year, month, day, hour, minute, sec, nanos := 1970, 1, 1, 0, 0, 0, 0
	yearDay := 0
	pm, hasAmPm, halfHour, hasHalf := false, false, 0, false
	var zone *time.Location
	pos := 0
	fail := func(why string) (ParseResult, error) {
		return ParseResult{}, fmt.Errorf("cannot parse %q with pattern %q at offset %d: %s", s, p.pattern, pos, why)
	}
	lastDigits, lastSigned := 0, false
	readNum := func(minDigits, maxDigits int, signed bool) (int, bool) {
		start := pos
		neg := false
		lastSigned = false
		if signed && pos < len(s) && (s[pos] == '-' || s[pos] == '+') {
			neg = s[pos] == '-'
			pos++
			lastSigned = true
		}
		ds := pos
		for pos < len(s) && pos-ds < maxDigits && s[pos] >= '0' && s[pos] <= '9' {
			pos++
		}
		if pos-ds < minDigits || pos == ds {
			pos = start
			return 0, false
		}
		lastDigits = pos - ds
		v, err := strconv.Atoi(s[ds:pos])
		if err != nil {
			pos = start
			return 0, false
		}
		if neg {
			v = -v
		}
		return v, true
	}
	matchText := func(names []string, short bool) (int, bool) {
		for i, name := range names {
			for _, cand := range []string{name, name[:3]} {
				if len(s)-pos >= len(cand) && strings.EqualFold(s[pos:pos+len(cand)], cand) {
					pos += len(cand)
					return i, true
				}
				if short {
					break
				}
			}
		}
		return 0, false
	}
	for i, tk := range p.toks {
		fixed := i+1 < len(p.toks) && isNumericTok(p.toks[i+1]) && isNumericTok(tk)
		width := func(max int) (int, int) {
			if fixed {
				return tk.count, tk.count
			}
			return 1, max
		}
		switch tk.letter {
		case 0:
			if !strings.HasPrefix(s[pos:], tk.lit) {
				return fail(fmt.Sprintf("expected %q", tk.lit))
			}
			pos += len(tk.lit)
		case 'y', 'Y':
			mn, mx := width(9)
			v, ok := readNum(mn, mx, tk.letter == 'y' && !fixed)
			if !ok {
				return fail("expected year")
			}
			if tk.count == 2 && !fixed && lastDigits == 2 && !lastSigned {
				// Two-digit year: the year in Joda's pivot window ending in these digits.
				low := twoDigitPivot - 50
				y := low - ((low%100)+100)%100 + v
				if y < low {
					y += 100
				}
				v = y
			}
			year = v
		case 'M':
			if tk.count >= 3 {
				m, ok := matchText(monthNames, false)
				if !ok {
					return fail("expected month name")
				}
				month = m + 1
				continue
			}
			mn, mx := width(2)
			v, ok := readNum(mn, mx, false)
			if !ok || v < 1 || v > 12 {
				return fail("expected month 1-12")
			}
			month = v
		case 'd':
			mn, mx := width(2)
			v, ok := readNum(mn, mx, false)
			if !ok || v < 1 || v > 31 {
				return fail("expected day of month")
			}
			day = v
		case 'D':
			mn, mx := width(3)
			v, ok := readNum(mn, mx, false)
			if !ok || v < 1 || v > 366 {
				return fail("expected day of year")
			}
			yearDay = v
		case 'H', 'k':
			mn, mx := width(2)
			v, ok := readNum(mn, mx, false)
			if !ok || (tk.letter == 'H' && v > 23) || (tk.letter == 'k' && (v < 1 || v > 24)) {
				return fail("expected hour")
			}
			hour = v % 24
		case 'h', 'K':
			mn, mx := width(2)
			v, ok := readNum(mn, mx, false)
			if !ok || (tk.letter == 'h' && (v < 1 || v > 12)) || (tk.letter == 'K' && v > 11) {
				return fail("expected hour of half day")
			}
			halfHour, hasHalf = v%12, true
		case 'a':
			switch {
			case len(s)-pos >= 2 && strings.EqualFold(s[pos:pos+2], "AM"):
				pm = false
			case len(s)-pos >= 2 && strings.EqualFold(s[pos:pos+2], "PM"):
				pm = true
			default:
				return fail("expected AM or PM")
			}
			hasAmPm = true
			pos += 2
		case 'm':
			mn, mx := width(2)
			v, ok := readNum(mn, mx, false)
			if !ok || v > 59 {
				return fail("expected minute")
			}
			minute = v
		case 's':
			mn, mx := width(2)
			v, ok := readNum(mn, mx, false)
			if !ok || v > 59 {
				return fail("expected second")
			}
			sec = v
		case 'S':
			start := pos
			for pos < len(s) && pos-start < tk.count && s[pos] >= '0' && s[pos] <= '9' {
				pos++
			}
			if pos == start {
				return fail("expected fraction of second")
			}
			digits := s[start:pos]
			if len(digits) > 3 {
				digits = digits[:3] // Joda keeps milliseconds only
			}
			ms, _ := strconv.Atoi(digits + strings.Repeat("0", 3-len(digits)))
			nanos = ms * 1e6
		case 'E':
			if _, ok := matchText(dayNames, false); !ok {
				return fail("expected day name")
			}
		case 'G':
			switch {
			case len(s)-pos >= 2 && (strings.EqualFold(s[pos:pos+2], "AD") || strings.EqualFold(s[pos:pos+2], "BC")):
				pos += 2
			default:
				return fail("expected era")
			}
		case 'Z':
			if tk.count >= 3 {
				start := pos
				for pos < len(s) && (isAlnum(s[pos]) || strings.IndexByte("/_+-:", s[pos]) >= 0) {
					pos++
				}
				l, err := javaTimeZone(s[start:pos])
				if err != nil {
					pos = start
					return fail("expected zone id")
				}
				zone = l
				continue
			}
			off, ok := parseOffset(s, &pos)
			if !ok {
				return fail("expected zone offset like +0800, +08:00 or Z")
			}
			zone = fixedZone(off)
		case 'z', 'C', 'x', 'w', 'e':
			// Joda cannot parse zone names; week fields and centuries are not needed by
			// Hudi inputs, so they are refused rather than half-supported.
			return fail(fmt.Sprintf("pattern letter %q is not supported for parsing", tk.letter))
		}
	}
	if pos != len(s) {
		return fail("unparsed trailing text")
	}
	if hasHalf {
		hour = halfHour
		if hasAmPm && pm {
			hour += 12
		}
	} else if hasAmPm && pm && hour < 12 {
		hour += 12
	}
	in := loc
	if zone != nil {
		in = zone
	}
	if in == nil {
		in = time.UTC
	}
	var t time.Time
	if yearDay > 0 {
		t = time.Date(year, 1, yearDay, hour, minute, sec, nanos, in)
	} else {
		if day > daysIn(year, month) {
			return fail(fmt.Sprintf("day %d out of range for %04d-%02d", day, year, month))
		}
		t = time.Date(year, time.Month(month), day, hour, minute, sec, nanos, in)
	}
	return ParseResult{Time: t, OffsetParsed: zone != nil}, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func isAlnum(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// parseOffset reads "Z", "+HH", "+HHmm" or "+HH:mm" (Joda's lenient offset parser).
func parseOffset(s string, pos *int) (int, bool) {
	i := *pos
	if i < len(s) && s[i] == 'Z' {
		*pos = i + 1
		return 0, true
	}
	if i >= len(s) || (s[i] != '+' && s[i] != '-') {
		return 0, false
	}
	sign := 1
	if s[i] == '-' {
		sign = -1
	}
	i++
	two := func() (int, bool) {
		if i+2 > len(s) || !isDigit(s[i]) || !isDigit(s[i+1]) {
			return 0, false
		}
		v := int(s[i]-'0')*10 + int(s[i+1]-'0')
		i += 2
		return v, true
	}
	h, ok := two()
	if !ok || h > 23 {
		return 0, false
	}
	m := 0
	save := i
	if i < len(s) && s[i] == ':' {
		i++
	}
	if v, ok := two(); ok && v < 60 {
		m = v
	} else {
		i = save
	}
	*pos = i
	return sign * (h*3600 + m*60), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func fixedZone(off int) *time.Location {
	if off == 0 {
		return time.UTC
	}
	sign := "+"
	a := off
	if a < 0 {
		sign, a = "-", -a
	}
	return time.FixedZone(sign+pad(int64(a/3600), 2)+":"+pad(int64(a%3600/60), 2), off)
}
