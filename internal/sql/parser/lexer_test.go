package parser

import (
	"strings"
	"testing"
)

// TestLexer checks token kinds, values, suffixes and positions.
func TestLexer(t *testing.T) {
	src := "SELECT `a``b`, 1abc, 12L, 3s, 4Y, 1.5d, 2.5BD, 1e10, .5, 1.e3F,\n  \"x\\ny\", r'\\d', 'caf\\u00e9', '\\101', a<=>b, c==d, e=>f, g->h, /* /* nested */ */ x -- tail\n"
	toks, err := lex(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks {
		if tk.kind == tokOp && tk.value == "," {
			continue
		}
		got = append(got, map[tokenKind]string{tokEOF: "eof", tokIdent: "id", tokQuotedIdent: "qid", tokString: "str", tokNumber: "num", tokOp: "op", tokOther: "other"}[tk.kind]+":"+tk.value+tk.suffix)
	}
	want := "id:SELECT qid:a`b id:1abc num:12L num:3S num:4Y num:1.5D num:2.5BD num:1e10 num:.5 num:1.e3F str:x\ny str:\\d str:café str:A id:a op:<=> id:b id:c op:== id:d id:e op:=> id:f id:g op:-> id:h id:x eof:"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("tokens\n got %s\nwant %s", g, want)
	}
	// Positions are 1-based lines and characters (not bytes).
	last := toks[len(toks)-2] // x
	if last.value != "x" || last.pos != (Pos{2, 83}) {
		t.Errorf("x at %v, want 2:83", last.pos)
	}
	toks, _ = lex("'é' b")
	if toks[1].pos != (Pos{1, 5}) {
		t.Errorf("b at %v, want 1:5 (columns count characters)", toks[1].pos)
	}
}
