package main
import (
 _ "github.com/apache/arrow-go/v18/parquet/pqarrow"
 _ "github.com/twmb/avro"
 _ "github.com/spf13/cobra"
)
func main(){}
