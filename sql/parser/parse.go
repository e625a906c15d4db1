package parser

// Parse reads a script of ;-separated statements (placeholder until the parser lands).
func Parse(script string) ([]Statement, error) {
	return nil, &SyntaxError{Pos: Pos{1, 1}, Msg: "the SQL parser is not implemented yet"}
}
