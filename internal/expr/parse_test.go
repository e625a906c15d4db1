package expr

import (
	"slices"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	cases := []struct{ in, want string }{
		{"fare > 20", "fare > 20"},
		{"fare>20.5", "fare > 20.5"},
		{"20 < fare", "fare > 20"},
		{"-1.5e3 >= x", "x <= -1.5e3"},
		{"'a' = city", "city = 'a'"},
		{"city = 'sao_paulo'", "city = 'sao_paulo'"},
		{"name = 'O''Brien'", "name = 'O''Brien'"},
		{"a <> 1 AND b != 2 or c == 3", "((a != 1 AND b != 2) OR c = 3)"},
		{"a = 1 OR b = 2 AND c = 3", "(a = 1 OR (b = 2 AND c = 3))"},
		{"(a = 1 OR b = 2) AND c = 3", "((a = 1 OR b = 2) AND c = 3)"},
		{"NOT a = 1 AND b = 2", "(NOT (a = 1) AND b = 2)"},
		{"not not a is null", "NOT (NOT (a IS NULL))"},
		{"x IN (1, 2, 3)", "x IN (1, 2, 3)"},
		{"x not in ('a', NULL)", "x NOT IN ('a', NULL)"},
		{"x IS NOT NULL", "x IS NOT NULL"},
		{"x BETWEEN 1 AND 10 AND y = 2", "(x BETWEEN 1 AND 10 AND y = 2)"},
		{"x NOT BETWEEN '2024-01-01' AND '2024-12-31'", "x NOT BETWEEN '2024-01-01' AND '2024-12-31'"},
		{"name LIKE 'A%'", "name LIKE 'A%'"},
		{"name NOT LIKE '%\\_x'", "name NOT LIKE '%\\_x'"},
		{"a.b.c = true", "a.b.c = TRUE"},
		{"`weird col`.`x` = FALSE", "`weird col.x` = FALSE"},
		{"`select` = 1", "select = 1"},
		{"`and` = 1", "`and` = 1"},
		{"`a``b` = null", "`a``b` = NULL"},
		{"isActive", "isActive = TRUE"},
		{"isActive AND NOT deleted", "(isActive = TRUE AND NOT (deleted = TRUE))"},
		{"(isActive)", "isActive = TRUE"},
		{"ts >= '2024-01-15 10:30:00'", "ts >= '2024-01-15 10:30:00'"},
		{"x = .5", "x = .5"},
		{"x = +5", "x = 5"},
		{"x\t=\n1", "x = 1"},
		{"_hoodie_commit_time > '20240101'", "_hoodie_commit_time > '20240101'"},
	}
	for _, tc := range cases {
		e, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		// String must parse back to the same rendering.
		again, err := Parse(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("re-parse of %q: %v, %v", e.String(), again, err)
		}
	}
}

func TestParseInvalid(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "position 1: expected an expression, found end of input"},
		{"fare >", "position 7: expected a literal after \">\", found end of input"},
		{"fare > other", "position 8: expected a literal after \">\", found column other (comparing two columns"},
		{"fare 20", "position 6: expected a comparison operator, IN, BETWEEN, LIKE or IS after column fare, found number 20"},
		{"(a = 1", "position 7: expected \")\", found end of input"},
		{"a = 1)", "position 6: expected AND, OR or end of input, found \")\""},
		{"a = 'x", "position 5: unterminated string literal"},
		{"`a = 1", "position 1: unterminated quoted column name"},
		{"a IN 1", "position 6: expected \"(\" after IN, found number 1"},
		{"a IN (1 2)", "position 9: expected \",\" or \")\" in the IN list"},
		{"a IN ()", "position 7: expected a literal in the IN list"},
		{"a BETWEEN 1 OR 2", "position 13: expected AND in BETWEEN, found \"OR\""},
		{"a LIKE 5", "position 8: expected a 'pattern' string after LIKE"},
		{"a IS 5", "position 6: expected NULL after IS"},
		{"a IS NOT 5", "position 10: expected NULL after IS NOT"},
		{"a NOT 5", "position 7: expected IN, BETWEEN or LIKE after NOT"},
		{"a = 1 AND", "position 10: expected a column, literal, NOT or \"(\", found end of input"},
		{"a ! 1", "position 3: unexpected \"!\""},
		{"a = 1 ; drop", "position 7: unexpected character ';'"},
		{"a = 12abc", "position 5: malformed number"},
		{"5 = 5", "position 5: expected a column after \"=\", found number 5"},
		{"5 AND a", "position 3: expected a comparison operator after literal 5"},
		{"a. = 1", "position 4: expected a column name after \".\""},
		{"a = -x", "position 6: expected a number after \"-\""},
		{"`` = 1", "position 1: empty quoted column name"},
		{strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300), "nested too deeply"},
		{strings.Repeat("NOT ", 300) + "a", "nested too deeply"},
	}
	for _, tc := range cases {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error %q", tc.in, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %q, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func TestColumns(t *testing.T) {
	e, err := Parse("b = 1 AND (a.x > 2 OR b < 0) AND NOT c IS NULL AND d IN (1) AND e LIKE 'x' AND f BETWEEN 1 AND 2")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.Columns(), []string{"b", "a.x", "c", "d", "e", "f"}; !slices.Equal(got, want) {
		t.Errorf("Columns() = %v, want %v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"fare > 20 AND city = 'sao_paulo'", "20 < fare", "x IN (1, 'a', NULL, -2.5e3)", "NOT (a IS NOT NULL OR b LIKE '%x_')",
		"`a``b`.c BETWEEN 1 AND 2", "a = 'it''s'", "((a))", "x NOT BETWEEN -1 AND +1", "a.b.c", "'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error %v is %T, want *SyntaxError", err, err)
			}
			return
		}
		// Whatever parses must render to text that parses to the same rendering.
		text := e.String()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its rendering %q fails: %v", s, text, err)
		}
		if again.String() != text {
			t.Fatalf("rendering not stable: %q -> %q", text, again.String())
		}
		_ = e.Columns()
		_ = MayMatchPartition(e, map[string]string{"a": "1", "city": "x"})
	})
}
