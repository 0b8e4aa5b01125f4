package protocol

import "embed"

// Source is this package's Go source. protocol/schema takes the doc
// comments of the types and fields from it, so that the schema and the
// TypeScript client carry the same words as the Go types.
//
//go:embed *.go
var Source embed.FS
