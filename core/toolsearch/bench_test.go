package toolsearch

import "testing"

// BenchmarkSearch10k is one search over 10,000 tools with 200-character
// descriptions and five parameters each: the cost the model pays per
// mcp_tool_search call.
func BenchmarkSearch10k(b *testing.B) {
	ix := New(catalog(10_000))
	queries := []string{"list invoices for a customer", "delete file", "sync_report_42", "export user events"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if len(ix.Search(queries[i%len(queries)], 8)) == 0 {
			b.Fatal("no hits")
		}
	}
}

// BenchmarkIndex10k builds the index of 10,000 tools: the cost paid once
// per catalog change.
func BenchmarkIndex10k(b *testing.B) {
	docs := catalog(10_000)
	b.ReportAllocs()
	for b.Loop() {
		New(docs)
	}
}
