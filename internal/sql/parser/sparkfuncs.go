package parser

import (
	"fmt"
	"strings"
)

// Spark functions whose DuckDB namesake (or nearest function) means something else are
// rewritten here into DuckDB expressions with Spark's semantics; the examples of Spark's
// SQL function reference are the tests (sparkfuncs_test.go, engine tests). Functions
// whose Spark meaning the translation cannot give are refused with their name, never run
// with DuckDB's meaning.

// refusedFunctions are Spark functions DuckDB would run with another meaning (or not at
// all), which hudi-go does not translate.
var refusedFunctions = map[string]string{
	"hash":               "Spark's Murmur3 hash differs from DuckDB's hash",
	"xxhash64":           "Spark's xxHash64 seed differs from DuckDB's",
	"from_json":          "",
	"schema_of_json":     "",
	"posexplode":         "",
	"posexplode_outer":   "",
	"explode_outer":      "",
	"inline":             "",
	"inline_outer":       "",
	"stack":              "",
	"from_utc_timestamp": "",
	"to_utc_timestamp":   "",
	"format_number":      "",
	"months_between":     "",
	"next_day":           "",
	"sentences":          "",
	"java_method":        "",
	"reflect":            "",
	"json_tuple":         "",
	"parse_url":          "",
	"str_to_map":         "",
	"width_bucket":       "",
}

// sparkFunction translates name(…) at i whose ')' is at close, when Spark's meaning needs
// a rewrite; ok is false for other functions.
func (p *parser) sparkFunction(b *textBuilder, name string, i, close int, sc *scope) (next int, ok bool, err error) {
	if why, refused := refusedFunctions[name]; refused {
		msg := "function " + name + " is not supported by hudi-go"
		if why != "" {
			msg += " (" + why + ")"
		}
		return 0, true, errAt(p.toks[i], msg)
	}
	lead := p.toks[i].lead
	args := func(min, max int) ([]*textBuilder, [][2]int, error) {
		parts, ranges, err := p.args(i+1, close, sc)
		if err != nil {
			return nil, nil, err
		}
		if len(parts) < min || len(parts) > max {
			want := fmt.Sprint(min)
			if max > min {
				want = fmt.Sprintf("%d to %d", min, max)
			}
			return nil, nil, errAt(p.toks[i], fmt.Sprintf("%s takes %s argument(s), got %d", name, want, len(parts)))
		}
		return parts, ranges, nil
	}
	// literal returns argument k as a string literal, or an error naming the function.
	literal := func(ranges [][2]int, k int, what string) (string, error) {
		r := ranges[k]
		if r[1]-r[0] != 1 || p.toks[r[0]].kind != tokString {
			return "", errAt(p.toks[r[0]], fmt.Sprintf("%s: the %s must be a string literal in hudi-go", name, what))
		}
		return p.toks[r[0]].value, nil
	}
	out := &textBuilder{}
	w := out.write
	arg := func(part *textBuilder) { out.splice(part) }
	switch name {
	case "split":
		parts, ranges, err := args(2, 3)
		if err != nil {
			return 0, true, err
		}
		if len(parts) == 3 {
			if _, err := literal(ranges, 2, "limit"); err != nil || p.toks[ranges[2][0]].value != "-1" {
				// split(s, re, limit) with a positive limit keeps the rest unsplit.
				return 0, true, errAt(p.toks[i], "split with a limit is not supported by hudi-go")
			}
		}
		// Spark's split takes a Java regular expression and keeps trailing empty strings.
		w("regexp_split_to_array(")
		arg(parts[0])
		w(", ")
		arg(parts[1])
		w(")")
	case "uuid":
		if _, _, err := args(0, 0); err != nil {
			return 0, true, err
		}
		w("CAST(uuid() AS VARCHAR)")
	case "element_at":
		parts, _, err := args(2, 2)
		if err != nil {
			return 0, true, err
		}
		// Arrays: 1-based, negative from the end (as DuckDB's subscript); maps: the value.
		w("(")
		arg(parts[0])
		w(")[")
		arg(parts[1])
		w("]")
	case "collect_list":
		parts, _, err := args(1, 1)
		if err != nil {
			return 0, true, err
		}
		// Spark skips nulls and gives [] for no rows.
		w("coalesce(list_filter(list(")
		arg(parts[0])
		w("), lambda __e: __e IS NOT NULL), [])")
	case "collect_set":
		parts, _, err := args(1, 1)
		if err != nil {
			return 0, true, err
		}
		w("coalesce(list_distinct(list(")
		arg(parts[0])
		w(")), [])")
	case "array_distinct":
		parts, _, err := args(1, 1)
		if err != nil {
			return 0, true, err
		}
		// Spark keeps each value's first occurrence, in order, and one NULL
		// (ArrayDistinct); DuckDB's list_distinct reorders and drops NULLs. An element is
		// kept where list_position (which finds NULL and NaN) first finds it.
		w("list_filter(")
		arg(parts[0])
		w(", lambda __x, __i: list_position(")
		arg(parts[0])
		w(", __x) = __i)")
	case "sort_array":
		parts, ranges, err := args(1, 2)
		if err != nil {
			return 0, true, err
		}
		// Spark's SortArray: NULLs first ascending, last descending; the order must be a
		// boolean literal (Spark requires a foldable one).
		order := "'ASC', 'NULLS FIRST'"
		if len(parts) == 2 {
			r := ranges[1]
			switch {
			case r[1]-r[0] == 1 && p.toks[r[0]].isKeyword("true"):
			case r[1]-r[0] == 1 && p.toks[r[0]].isKeyword("false"):
				order = "'DESC', 'NULLS LAST'"
			default:
				return 0, true, errAt(p.toks[r[0]], "sort_array: the sort order must be true or false in hudi-go")
			}
		}
		w("list_sort(")
		arg(parts[0])
		w(", " + order + ")")
	case "sequence":
		parts, ranges, err := args(2, 3)
		if err != nil {
			return 0, true, err
		}
		if len(parts) == 3 && p.toks[ranges[2][0]].isKeyword("INTERVAL") {
			return 0, true, errAt(p.toks[i], "sequence of dates or timestamps is not supported by hudi-go (integers only)")
		}
		// Spark's Sequence: start to stop inclusive; the step defaults to 1 (-1 when
		// start > stop); a step that does not lead from start to stop fails, except a zero
		// step with start = stop ([start]); any NULL argument gives NULL.
		// Spark accepts integral types only (besides dates and timestamps): any other type
		// fails naming sequence; the bounds are then compared and generated as BIGINT.
		integral := `('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'NULL', '"NULL"')`
		bigint := func(part *textBuilder) *textBuilder {
			c := &textBuilder{}
			c.write("TRY_CAST(")
			c.splice(part)
			c.write(" AS BIGINT)")
			return c
		}
		start, stop := bigint(parts[0]), bigint(parts[1])
		step := &textBuilder{}
		if len(parts) == 3 {
			step = bigint(parts[2])
		} else {
			step.write("(CASE WHEN ")
			step.splice(start)
			step.write(" <= ")
			step.splice(stop)
			step.write(" THEN 1 ELSE -1 END)")
		}
		w("(CASE WHEN ")
		for k, part := range parts {
			if k > 0 {
				w(" OR ")
			}
			w("typeof(")
			arg(part)
			w(") NOT IN " + integral)
		}
		w(" THEN error('sequence: start, stop and step must be integers in hudi-go, not ' || ")
		for k, part := range parts {
			if k > 0 {
				w(" || ', ' || ")
			}
			w("typeof(")
			arg(part)
			w(")")
		}
		w(") WHEN ")
		arg(start)
		w(" IS NULL OR ")
		arg(stop)
		w(" IS NULL OR ")
		arg(step)
		w(" IS NULL THEN NULL WHEN ")
		arg(step)
		w(" = 0 AND ")
		arg(start)
		w(" = ")
		arg(stop)
		w(" THEN [")
		arg(start)
		w("] WHEN ")
		arg(step)
		w(" > 0 AND ")
		arg(start)
		w(" <= ")
		arg(stop)
		w(" OR ")
		arg(step)
		w(" < 0 AND ")
		arg(start)
		w(" >= ")
		arg(stop)
		w(" THEN generate_series(")
		arg(start)
		w(", ")
		arg(stop)
		w(", ")
		arg(step)
		w(") ELSE error('sequence: illegal sequence boundaries: ' || ")
		arg(start)
		w(" || ' to ' || ")
		arg(stop)
		w(" || ' by ' || ")
		arg(step)
		w(") END)")
	case "percentile_approx", "approx_percentile":
		parts, _, err := args(2, 3)
		if err != nil {
			return 0, true, err
		}
		// Spark returns a value of the column: the smallest whose rank covers the
		// percentage. Exact here (Spark's default accuracy is exact on small groups).
		w("quantile_disc(")
		arg(parts[0])
		w(", ")
		arg(parts[1])
		w(")")
	case "sha2":
		parts, ranges, err := args(2, 2)
		if err != nil {
			return 0, true, err
		}
		r := ranges[1]
		bits := ""
		if r[1]-r[0] == 1 && p.toks[r[0]].kind == tokNumber {
			bits = p.toks[r[0]].value
		}
		switch bits {
		case "0", "256":
			w("sha256(")
			arg(parts[0])
			w(")")
		default:
			return 0, true, errAt(p.toks[i], "sha2: only 256 (or 0) bits are supported by hudi-go")
		}
	case "datediff":
		parts, _, err := args(2, 2)
		if err != nil {
			return 0, true, err
		}
		// Spark's datediff(end, start) counts days from start to end.
		w("date_diff('day', CAST(")
		arg(parts[1])
		w(" AS DATE), CAST(")
		arg(parts[0])
		w(" AS DATE))")
	case "trunc":
		parts, ranges, err := args(2, 2)
		if err != nil {
			return 0, true, err
		}
		f, err := literal(ranges, 1, "format")
		if err != nil {
			return 0, true, err
		}
		unit := map[string]string{"year": "year", "yyyy": "year", "yy": "year", "quarter": "quarter", "month": "month",
			"mon": "month", "mm": "month", "week": "week"}[strings.ToLower(f)]
		if unit == "" {
			w("CAST(NULL AS DATE)") // Spark: an unknown format gives NULL
			break
		}
		w("CAST(date_trunc('" + unit + "', CAST(")
		arg(parts[0])
		w(" AS DATE)) AS DATE)")
	case "date_format":
		parts, ranges, err := args(2, 2)
		if err != nil {
			return 0, true, err
		}
		f, err := literal(ranges, 1, "pattern")
		if err != nil {
			return 0, true, err
		}
		sf, err := javaPattern(f, true)
		if err != nil {
			return 0, true, errAt(p.toks[i], "date_format: "+err.Error())
		}
		w("strftime(CAST(")
		arg(parts[0])
		w(" AS TIMESTAMPTZ), " + quoteString(sf) + ")")
	case "from_unixtime":
		parts, ranges, err := args(1, 2)
		if err != nil {
			return 0, true, err
		}
		f := "yyyy-MM-dd HH:mm:ss"
		if len(parts) == 2 {
			if f, err = literal(ranges, 1, "pattern"); err != nil {
				return 0, true, err
			}
		}
		sf, err := javaPattern(f, true)
		if err != nil {
			return 0, true, errAt(p.toks[i], "from_unixtime: "+err.Error())
		}
		w("strftime(to_timestamp(CAST(")
		arg(parts[0])
		w(" AS BIGINT)), " + quoteString(sf) + ")")
	case "unix_timestamp", "to_unix_timestamp":
		parts, ranges, err := args(0, 2)
		if err != nil {
			return 0, true, err
		}
		switch len(parts) {
		case 0:
			w("CAST(floor(epoch(current_timestamp)) AS BIGINT)")
		case 1:
			w("CAST(floor(epoch(TRY_CAST(")
			arg(parts[0])
			w(" AS TIMESTAMPTZ))) AS BIGINT)")
		default:
			f, err := literal(ranges, 1, "pattern")
			if err != nil {
				return 0, true, err
			}
			sf, err := javaPattern(f, false)
			if err != nil {
				return 0, true, errAt(p.toks[i], name+": "+err.Error())
			}
			w("CAST(floor(epoch(CAST(try_strptime(CAST(")
			arg(parts[0])
			w(" AS VARCHAR), " + quoteString(sf) + ") AS TIMESTAMPTZ))) AS BIGINT)")
		}
	case "to_date", "to_timestamp":
		parts, ranges, err := args(1, 2)
		if err != nil {
			return 0, true, err
		}
		typ := "DATE"
		if name == "to_timestamp" {
			typ = "TIMESTAMPTZ"
		}
		if len(parts) == 1 {
			// Spark gives NULL for text it cannot read.
			w("TRY_CAST(")
			arg(parts[0])
			w(" AS " + typ + ")")
			break
		}
		f, err := literal(ranges, 1, "pattern")
		if err != nil {
			return 0, true, err
		}
		sf, err := javaPattern(f, false)
		if err != nil {
			return 0, true, errAt(p.toks[i], name+": "+err.Error())
		}
		// A zone-less pattern reads the text in the session time zone, as Spark does.
		w("CAST(CAST(try_strptime(CAST(")
		arg(parts[0])
		w(" AS VARCHAR), " + quoteString(sf) + ") AS TIMESTAMPTZ) AS " + typ + ")")
	case "regexp_replace":
		parts, _, err := args(3, 3)
		if err != nil {
			return 0, true, err
		}
		// Spark replaces every match (DuckDB only the first without 'g'); Java's $1 is
		// DuckDB's \1.
		w("regexp_replace(")
		arg(parts[0])
		w(", ")
		arg(parts[1])
		w(", regexp_replace(")
		arg(parts[2])
		w(", '\\$(\\d)', '\\\\\\1', 'g'), 'g')")
	case "regexp_extract":
		parts, _, err := args(2, 3)
		if err != nil {
			return 0, true, err
		}
		// Spark's group defaults to 1 (DuckDB's to 0).
		w("regexp_extract(")
		arg(parts[0])
		w(", ")
		arg(parts[1])
		w(", ")
		if len(parts) == 3 {
			arg(parts[2])
		} else {
			w("1")
		}
		w(")")
	case "date_add", "date_sub":
		parts, _, err := args(2, 2)
		if err != nil {
			return 0, true, err
		}
		op := " + "
		if name == "date_sub" {
			op = " - "
		}
		w("CAST(CAST(")
		arg(parts[0])
		w(" AS DATE)" + op + "CAST(")
		arg(parts[1])
		w(" AS INTEGER) AS DATE)")
	case "dayofweek":
		parts, _, err := args(1, 1)
		if err != nil {
			return 0, true, err
		}
		// Spark: 1 = Sunday … 7 = Saturday (DuckDB counts from 0).
		w("(dayofweek(CAST(")
		arg(parts[0])
		w(" AS DATE)) + 1)")
	case "array_sort":
		if len(p.splitCommas(i+2, close)) > 1 {
			// DuckDB's list_sort takes no comparator.
			return 0, true, errAt(p.toks[i], "array_sort with a comparator function is not supported by hudi-go")
		}
		return 0, false, nil
	default:
		if ok, err := p.higherOrder(out, name, i, close, sc); !ok || err != nil {
			return 0, ok, err
		}
	}
	b.write(lead)
	b.splice(out)
	return close + 1, true, nil
}

// javaPattern translates a Java DateTimeFormatter pattern (Spark's datetime patterns)
// into a DuckDB strftime/strptime format. forOutput allows the unpadded forms (d, M, H,
// …) strftime has; strptime reads padded fields leniently anyway.
func javaPattern(pat string, forOutput bool) (string, error) {
	var out strings.Builder
	for i := 0; i < len(pat); {
		c := pat[i]
		if c == '\'' {
			j := strings.IndexByte(pat[i+1:], '\'')
			if j < 0 {
				return "", fmt.Errorf("unterminated quote in pattern %q", pat)
			}
			lit := pat[i+1 : i+1+j]
			if lit == "" {
				lit = "'"
			}
			out.WriteString(strings.ReplaceAll(lit, "%", "%%"))
			i += j + 2
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			if c == '%' {
				out.WriteString("%%")
			} else {
				out.WriteByte(c)
			}
			i++
			continue
		}
		n := 1
		for i+n < len(pat) && pat[i+n] == c {
			n++
		}
		unpadded := func(padded, bare string) string {
			if n == 1 && forOutput {
				return bare
			}
			return padded
		}
		var f string
		switch c {
		case 'y', 'u':
			f = "%Y"
			if n == 2 {
				f = "%y"
			}
		case 'M', 'L':
			switch {
			case n >= 4:
				f = "%B"
			case n == 3:
				f = "%b"
			default:
				f = unpadded("%m", "%-m")
			}
		case 'd':
			f = unpadded("%d", "%-d")
		case 'D':
			f = "%j"
		case 'H':
			f = unpadded("%H", "%-H")
		case 'h':
			f = unpadded("%I", "%-I")
		case 'm':
			f = unpadded("%M", "%-M")
		case 's':
			f = unpadded("%S", "%-S")
		case 'S':
			switch n {
			case 3:
				f = "%g"
			case 6:
				f = "%f"
			case 9:
				f = "%n"
			default:
				return "", fmt.Errorf("fraction of %d digits in pattern %q is not supported by hudi-go (use S, SSS, SSSSSS or SSSSSSSSS)", n, pat)
			}
			if n == 1 {
				return "", fmt.Errorf("fraction of 1 digit in pattern %q is not supported by hudi-go", pat)
			}
		case 'a':
			f = "%p"
		case 'E':
			f = "%a"
			if n >= 4 {
				f = "%A"
			}
		case 'Z', 'x':
			f = "%z"
		case 'z', 'V':
			f = "%Z"
		default:
			return "", fmt.Errorf("pattern letter %q in %q is not supported by hudi-go", string(c), pat)
		}
		out.WriteString(f)
		i += n
	}
	return out.String(), nil
}
