//go:build !unix

package process_test

// sessionReport: sessions and descriptors above stderr are Unix's.
func sessionReport() string { return "" }
