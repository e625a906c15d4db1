//go:build !race

package mdt_test

const raceEnabled = false
