package bench

import (
	"fmt"
	"time"
)

// lazyMarkdown renders the lazy-start rows.
func (t *Table) lazyMarkdown(p func(format string, args ...any)) {
	if t.LazyNote != "" {
		p("\nhost serve with eight npm stdio servers: %s\n", t.LazyNote)
		return
	}
	if len(t.Lazy) == 0 {
		return
	}
	p("\n`host serve` with eight npm stdio servers (server-everything twice, filesystem, memory, sequential-thinking, playwright, antv chart, git), unconfined, median of rounds:\n\n")
	p("| measurement | eager | lazy | lazy / reference |\n|---|---|---|---|\n")
	for _, r := range t.Lazy {
		if r.EagerRSS != 0 || r.LazyRSS != 0 {
			p("| %s | %s | %s | |\n", r.What, mib(r.EagerRSS), mib(r.LazyRSS))
			continue
		}
		ref := ""
		if r.Ref > 0 {
			ref = fmt.Sprintf("%.2f (%s %s)", float64(r.Lazy)/float64(r.Ref), r.RefWhat, ms(r.Ref))
		}
		p("| %s | %s | %s | %s |\n", r.What, ms(r.Eager), ms(r.Lazy), ref)
	}
}

// ms is d in milliseconds, "-" for none.
func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
