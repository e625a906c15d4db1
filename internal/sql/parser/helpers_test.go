package parser

import (
	"fmt"
	"reflect"
	"strings"
)

func typeName(v any) string { return fmt.Sprintf("%T", v) }

// render shows a SQLText with each reference as {name asof=… changes=…}, for goldens.
func render(t SQLText) string {
	s, _ := t.Render(func(_ int, r TableRef) (string, error) {
		if r.Subscript != nil { // a column subscript the engine decides: {sub col index}
			return "{sub " + r.Subscript.String() + " " + r.Subscript.Index + "}", nil
		}
		var b strings.Builder
		b.WriteString("{" + r.Name.String())
		if r.AsOf != "" {
			b.WriteString(" asof=" + r.AsOf)
		}
		if r.Changes != nil {
			b.WriteString(" changes=" + r.Changes.Format + "," + r.Changes.Begin + "," + r.Changes.End)
		}
		b.WriteString("}")
		return b.String(), nil
	})
	return s
}

// show renders a statement compactly for goldens: zero fields and positions omitted,
// SQLText rendered, table names as strings.
func show(v any) string {
	var b strings.Builder
	showValue(&b, reflect.ValueOf(v))
	return b.String()
}

func showValue(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		showValue(b, v.Elem())
		return
	}
	switch x := v.Interface().(type) {
	case SQLText:
		fmt.Fprintf(b, "%q", render(x))
		return
	case TableName:
		b.WriteString(x.String())
		return
	case MergeAction:
		b.WriteString([]string{"update", "delete", "insert"}[x])
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		b.WriteString(v.Type().Name() + "{")
		first := true
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.Name == "Pos" || v.Field(i).IsZero() {
				continue
			}
			if !first {
				b.WriteString(" ")
			}
			first = false
			b.WriteString(f.Name + ":")
			showValue(b, v.Field(i))
		}
		b.WriteString("}")
	case reflect.Slice:
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			showValue(b, v.Index(i))
		}
		b.WriteString("]")
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprint(b, v.Interface())
	}
}
