package main

// The object-store backends, registered with the storage registry by URL scheme: the
// core packages import no cloud SDK; this program links them.
import (
	_ "github.com/hudi-go/hudi/storage/azure" // abfs://, abfss://, wasb://, wasbs://
	_ "github.com/hudi-go/hudi/storage/gcs"   // gs://
	_ "github.com/hudi-go/hudi/storage/s3"    // s3://, s3a://
)
