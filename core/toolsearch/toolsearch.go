// Package toolsearch ranks the tools of a large catalog for a keyword
// query, so that a model can find the few tools it needs instead of reading
// every definition. It has one job: build an index once per catalog and
// answer queries from it with BM25 over each tool's names, title,
// description and parameter names. It knows nothing of MCP or of the run
// loop: the runtime decides when a catalog is searched and what a hit
// makes callable.
//
// Everything a tool says about itself is untrusted and bounded: at most
// [MaxFieldBytes] of each field and [MaxDocTerms] distinct terms of a tool
// are indexed, so a hostile description can neither blow up the index nor
// crowd out the other tools by repeating a word.
//
// Like all of core, it must not import anything but the standard library
// and core's own packages (core/...).
package toolsearch

import (
	"math"
	"sort"
	"strings"
	"sync"
)

// Bounds of what the index takes from one tool and from one query.
const (
	// MaxFieldBytes is the most bytes of one field (a name, the title,
	// the description, all parameter names together) that are indexed.
	MaxFieldBytes = 4096
	// MaxDocTerms is the most distinct terms indexed per tool.
	MaxDocTerms = 256
	// MaxTermBytes is the longest term kept; longer runs of letters or
	// digits are cut to it.
	MaxTermBytes = 40
	// MaxQueryTerms is the most query terms that count.
	MaxQueryTerms = 16
	// MaxQueryBytes is the most bytes of a query that are read.
	MaxQueryBytes = 1024
	// MaxLimit is the most hits one search returns.
	MaxLimit = 50
)

// Field weights: a word in a tool's name says more about the tool than the
// same word somewhere in its description.
const (
	weightName   = 3.0
	weightTitle  = 2.0
	weightParams = 1.5
	weightDesc   = 1.0
)

// BM25 parameters (the usual ones).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// A Doc is one tool as the index sees it. Every field is untrusted text.
type Doc struct {
	// Names are the names the tool is known by, such as the public name
	// the model calls, the server's own name for it and "server/tool". A
	// query equal to one of them (ignoring case and surrounding space)
	// ranks the tool first.
	Names []string
	// Title is the tool's display name.
	Title string
	// Description says what the tool does.
	Description string
	// Params are the names of the tool's parameters.
	Params []string
}

// A Hit is one tool that matches a query.
type Hit struct {
	// Doc is the tool's position in the slice given to [New].
	Doc int
	// Score is the tool's relevance; higher is better. An exact name
	// match scores above every BM25 score.
	Score float64
	// Exact reports that the query equals one of the tool's names.
	Exact bool
}

// posting is one tool's weighted frequency of a term.
type posting struct {
	doc int32
	tf  float32
}

// An Index answers queries over a fixed set of tools. It is immutable once
// built and safe for concurrent use.
type Index struct {
	n        int
	postings map[string][]posting
	docLen   []float32 // weighted length of each tool
	avgLen   float64
	exact    map[string][]int32 // lowercased name -> tools
	scratch  sync.Pool          // *[]float64 of length n
}

// New indexes docs. The cost is linear in the (bounded) text of the tools;
// build it once per catalog and reuse it for every query.
func New(docs []Doc) *Index {
	ix := &Index{
		n:        len(docs),
		postings: make(map[string][]posting),
		docLen:   make([]float32, len(docs)),
		exact:    make(map[string][]int32),
	}
	tf := make(map[string]float32, 64)
	var total float64
	for i, d := range docs {
		clear(tf)
		length := 0.0
		add := func(text string, w float32) {
			forTerms(bound(text, MaxFieldBytes), func(t string) {
				if _, ok := tf[t]; ok || len(tf) < MaxDocTerms {
					tf[t] += w
					length += float64(w)
				}
			})
		}
		for _, name := range d.Names {
			add(name, weightName)
			if key := exactKey(name); key != "" {
				ix.exact[key] = appendOnce(ix.exact[key], int32(i))
			}
		}
		add(d.Title, weightTitle)
		add(strings.Join(boundList(d.Params), " "), weightParams)
		add(d.Description, weightDesc)
		for t, f := range tf {
			ix.postings[t] = append(ix.postings[t], posting{doc: int32(i), tf: f})
		}
		ix.docLen[i] = float32(length)
		total += length
	}
	if ix.n > 0 {
		ix.avgLen = total / float64(ix.n)
	}
	if ix.avgLen == 0 {
		ix.avgLen = 1
	}
	ix.scratch.New = func() any { s := make([]float64, ix.n); return &s }
	return ix
}

// Len returns the number of tools in the index.
func (ix *Index) Len() int { return ix.n }

// Search returns at most limit tools for query, best first: tools whose
// name equals the query, then tools by BM25 score (ties by position). A
// tool matches when at least one query term occurs in it; a query without
// terms matches nothing. limit is clamped to 1..[MaxLimit]. Every Hit.Doc
// is a position in the indexed docs.
func (ix *Index) Search(query string, limit int) []Hit {
	limit = min(max(limit, 1), MaxLimit)
	if ix.n == 0 {
		return nil
	}
	query = bound(query, MaxQueryBytes)
	var terms []string
	forTerms(query, func(t string) {
		if len(terms) < MaxQueryTerms && !contains(terms, t) {
			terms = append(terms, t)
		}
	})
	var hits []Hit
	exact := ix.exact[exactKey(query)]
	for _, d := range exact {
		if len(hits) < limit {
			hits = append(hits, Hit{Doc: int(d), Score: math.Inf(1), Exact: true})
		}
	}
	if len(terms) == 0 || len(hits) == limit {
		return hits
	}
	sp := ix.scratch.Get().(*[]float64)
	scores := *sp
	var touched []int32
	for _, t := range terms {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (float64(ix.n)-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.docLen[p.doc])/ix.avgLen)
			scores[p.doc] += idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	hits = ix.top(hits, scores, touched, limit)
	for _, d := range touched {
		scores[d] = 0
	}
	ix.scratch.Put(sp)
	return hits
}

// top appends to hits the best scored tools of touched that are not
// already in hits, until there are limit.
func (ix *Index) top(hits []Hit, scores []float64, touched []int32, limit int) []Hit {
	room := limit - len(hits)
	best := make([]Hit, 0, room+1)
	for _, d := range touched {
		if isExact(hits, d) {
			continue
		}
		h := Hit{Doc: int(d), Score: scores[d]}
		if len(best) == room && !better(h, best[room-1]) {
			continue
		}
		i := sort.Search(len(best), func(i int) bool { return better(h, best[i]) })
		best = append(best, Hit{})
		copy(best[i+1:], best[i:])
		best[i] = h
		if len(best) > room {
			best = best[:room]
		}
	}
	return append(hits, best...)
}

// better orders hits: higher score first, then earlier position.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Doc < b.Doc
}

func isExact(hits []Hit, d int32) bool {
	for _, h := range hits {
		if h.Doc == int(d) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func appendOnce(list []int32, d int32) []int32 {
	if n := len(list); n > 0 && list[n-1] == d {
		return list
	}
	return append(list, d)
}

// exactKey is how a name and a query are compared for an exact match.
func exactKey(s string) string {
	return strings.ToLower(strings.TrimSpace(bound(s, MaxFieldBytes)))
}

// bound cuts s to at most n bytes.
func bound(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// boundList returns the first names of list whose total length fits
// MaxFieldBytes.
func boundList(list []string) []string {
	total := 0
	for i, s := range list {
		total += len(s) + 1
		if total > MaxFieldBytes {
			return list[:i]
		}
	}
	return list
}
