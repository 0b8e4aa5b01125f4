package toolsearch

import (
	"fmt"
	"strings"
	"testing"
)

// catalog returns n synthetic tools shaped like a large MCP catalog:
// 200-character descriptions drawn from a shared vocabulary and five
// parameters each.
func catalog(n int) []Doc {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "sync", "export"}
	nouns := []string{"issue", "invoice", "customer", "ticket", "file", "repo", "order", "user", "event", "report", "page", "label"}
	docs := make([]Doc, n)
	for i := range docs {
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		name := fmt.Sprintf("%s_%s_%d", v, o, i)
		desc := fmt.Sprintf("%s the %s records of workspace %d. ", v, o, i)
		for len(desc) < 200 {
			desc += "Returns data from the remote service with pagination and filters. "
		}
		docs[i] = Doc{
			Names:       []string{"mcp_srv" + fmt.Sprint(i%50) + "_" + name + "_0a1b2c3d", name},
			Title:       strings.ToUpper(v[:1]) + v[1:] + " " + o,
			Description: desc[:200],
			Params:      []string{"id", "limit", "cursor", o + "_name", "fields"},
		}
	}
	return docs
}

func names(ix []Doc, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, ix[h.Doc].Names[len(ix[h.Doc].Names)-1])
	}
	return out
}

func TestExactNameRanksFirst(t *testing.T) {
	docs := []Doc{
		{Names: []string{"weather_forecast"}, Description: "weather weather weather forecast for a city; weather alerts"},
		{Names: []string{"get_weather"}, Description: "Current conditions."},
		{Names: []string{"weather"}, Description: "Alias."},
	}
	ix := New(docs)
	for _, q := range []string{"get_weather", "  GET_WEATHER "} {
		hits := ix.Search(q, 3)
		if len(hits) == 0 || hits[0].Doc != 1 || !hits[0].Exact {
			t.Fatalf("Search(%q) = %v, want get_weather first and exact", q, hits)
		}
	}
	hits := ix.Search("weather", 3)
	if hits[0].Doc != 2 || !hits[0].Exact {
		t.Fatalf("Search(weather) = %v, want the tool named weather first", hits)
	}
	if len(hits) != 3 {
		t.Fatalf("Search(weather) = %v, want the other two after it", hits)
	}
}

func TestNameOutranksDescription(t *testing.T) {
	docs := []Doc{
		{Names: []string{"send_mail"}, Description: "Send a message. Mentions invoice once."},
		{Names: []string{"create_invoice"}, Description: "Create a new bill for a customer."},
	}
	hits := New(docs).Search("invoice", 2)
	if len(hits) != 2 || hits[0].Doc != 1 {
		t.Fatalf("Search(invoice) = %v, want create_invoice first", hits)
	}
}

func TestParameterNamesCount(t *testing.T) {
	docs := []Doc{
		{Names: []string{"alpha"}, Description: "Does alpha things.", Params: []string{"x"}},
		{Names: []string{"beta"}, Description: "Does beta things.", Params: []string{"postalCode", "country"}},
		{Names: []string{"gamma"}, Description: "Does gamma things."},
	}
	hits := New(docs).Search("postal code", 3)
	if len(hits) != 1 || hits[0].Doc != 1 {
		t.Fatalf("Search(postal code) = %v, want only the tool with the postalCode parameter", hits)
	}
	// The camelCase name is a term of its own as well.
	if hits := New(docs).Search("postalcode", 3); len(hits) != 1 || hits[0].Doc != 1 {
		t.Fatalf("Search(postalcode) = %v, want the postalCode tool", hits)
	}
}

func TestHostileDescriptionBounded(t *testing.T) {
	huge := strings.Repeat("delete ", 1<<20) // 7 MB of one word
	many := strings.Builder{}
	for i := range 100_000 {
		fmt.Fprintf(&many, "w%d ", i) // 100,000 distinct terms
	}
	docs := []Doc{
		{Names: []string{"stuffed"}, Description: huge},
		{Names: []string{"spray"}, Description: many.String(), Params: strings.Split(strings.Repeat("p ", 100_000), " ")},
		{Names: []string{"delete_file"}, Title: "Delete file", Description: "Delete one file."},
	}
	ix := New(docs)
	terms := 0
	for _, ps := range ix.postings {
		terms += len(ps)
	}
	if terms > 3*MaxDocTerms {
		t.Fatalf("index holds %d postings for 3 tools, want at most %d", terms, 3*MaxDocTerms)
	}
	for term := range ix.postings {
		if len(term) > MaxTermBytes {
			t.Fatalf("term of %d bytes indexed, want at most %d", len(term), MaxTermBytes)
		}
	}
	hits := ix.Search("delete file", 3)
	if len(hits) == 0 || hits[0].Doc != 2 {
		t.Fatalf("Search(delete file) = %v, want delete_file first, not the tool repeating delete", hits)
	}
	// A term past the indexed prefix is not found: the rest was never read.
	if hits := ix.Search("w99999", 3); len(hits) != 0 {
		t.Fatalf("a term past the bounds matched: %v", hits)
	}
	// A huge query is read only up to its bound.
	if hits := ix.Search(strings.Repeat("zz ", 1<<20)+"delete", 3); len(hits) != 0 {
		t.Fatalf("a term past the query bound counted: %v", hits)
	}
}

func TestLimitAndEmpty(t *testing.T) {
	docs := catalog(500)
	ix := New(docs)
	if got := len(ix.Search("invoice", 7)); got != 7 {
		t.Fatalf("limit 7 gave %d hits", got)
	}
	if got := len(ix.Search("invoice", 0)); got != 1 {
		t.Fatalf("limit 0 gave %d hits, want it clamped to 1", got)
	}
	if got := len(ix.Search("workspace", 1000)); got != MaxLimit {
		t.Fatalf("limit 1000 gave %d hits, want %d", got, MaxLimit)
	}
	for _, q := range []string{"", "   ", "!!! ??", "x"} {
		if hits := ix.Search(q, 5); len(hits) != 0 {
			t.Fatalf("Search(%q) = %v, want nothing", q, hits)
		}
	}
	if hits := New(nil).Search("anything", 5); hits != nil {
		t.Fatalf("empty index answered %v", hits)
	}
}

func TestFindsTheToolAmongTenThousand(t *testing.T) {
	docs := catalog(10_000)
	docs[7345] = Doc{
		Names:       []string{"mcp_billing_refund_payment_9f8e7d6c", "refund_payment"},
		Title:       "Refund a payment",
		Description: "Refund a captured card payment, fully or in part.",
		Params:      []string{"payment_id", "amount"},
	}
	ix := New(docs)
	for _, q := range []string{"refund payment", "refund a card payment", "refunds", "refund_payment"} {
		hits := ix.Search(q, 5)
		if len(hits) == 0 || hits[0].Doc != 7345 {
			t.Fatalf("Search(%q) = %v, want refund_payment first", q, names(docs, hits))
		}
	}
	// Scores never increase down the list.
	hits := ix.Search("list invoice customer", 20)
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("hit %d scores %v above hit %d (%v)", i, hits[i].Score, i-1, hits[i-1].Score)
		}
	}
}

func TestTerms(t *testing.T) {
	var got []string
	forTerms("getWeatherData mcp_srv_list_files_0a1b2c3d x Ü-Größe", func(s string) { got = append(got, s) })
	want := "get weather data getweatherdata mcp srv list file 0a1b2c3d größe"
	if strings.Join(got, " ") != want {
		t.Fatalf("terms = %q, want %q", strings.Join(got, " "), want)
	}
}

// FuzzSearchStaysInCatalog: whatever the tools and the query, every hit
// names a tool of the index, once, and there are at most limit of them.
func FuzzSearchStaysInCatalog(f *testing.F) {
	f.Add("get_weather", "weather forecast", "city", "weather", 3)
	f.Add("a\x00b", "\xff\xfe", "", "\u202e evil", 50)
	f.Add("x", strings.Repeat("y ", 5000), "z", "y", -1)
	f.Fuzz(func(t *testing.T, name, desc, param, query string, limit int) {
		docs := catalog(40)
		docs = append(docs, Doc{Names: []string{name}, Description: desc, Params: []string{param}})
		docs = append(docs, Doc{Names: []string{desc}, Title: name, Description: query})
		ix := New(docs)
		hits := ix.Search(query, limit)
		if len(hits) > max(min(limit, MaxLimit), 1) {
			t.Fatalf("%d hits for limit %d", len(hits), limit)
		}
		seen := map[int]bool{}
		for _, h := range hits {
			if h.Doc < 0 || h.Doc >= len(docs) {
				t.Fatalf("hit %d is outside the catalog of %d tools", h.Doc, len(docs))
			}
			if seen[h.Doc] {
				t.Fatalf("tool %d returned twice", h.Doc)
			}
			seen[h.Doc] = true
		}
	})
}
