package bench

import (
	"fmt"
	"strings"
	"time"
)

// A Table is the result of a bench run: ratios to the bare go-sdk client
// (lower is faster), with absolute values as context.
type Table struct {
	Started time.Time
	Elapsed time.Duration
	// Machine says where it ran; LoadStart and LoadEnd are the 1-minute
	// load averages when it started and ended ("" when unknown).
	Machine            string
	LoadStart, LoadEnd string

	Calls        []CallRow
	CatalogTools int
	Catalog      []CatalogRow
	ManyServers  int
	Many         []ManyRow
	OneShot      []OneShotRow
	Sandbox      []SandboxRow
	Lazy         []LazyRow
	// LazyNote says why the lazy rows were not measured.
	LazyNote string
	// Soak are the soak's samples, SoakWork what it did, SoakChecks its
	// bounds.
	Soak       []SoakSample
	SoakWork   string
	SoakChecks []SoakCheck
}

// A CallRow is one way of calling the echo tool.
type CallRow struct {
	Path string
	// Seq and Par are the time per call, one at a time and 8 at a time,
	// as a ratio to the bare go-sdk client's.
	Seq, Par       float64
	SeqAbs, ParAbs time.Duration
	// Allocs and AllocBytes are per sequential call in the client's
	// process; Allocs is negative when not measured (not Go).
	Allocs, AllocBytes float64
	// ConnsPer1000 is the TCP connections the server accepted per 1,000
	// calls during the rounds.
	ConnsPer1000 float64
	// Note says why the row was not measured.
	Note string
}

// A CatalogRow is connect + list of the large catalog in a fresh process.
type CatalogRow struct {
	Path    string
	Time    float64 // ratio to the bare go-sdk
	RSS     float64 // peak RSS, ratio to the bare go-sdk
	TimeAbs time.Duration
	RSSAbs  int64
}

// A ManyRow is many servers connected at once.
type ManyRow struct {
	Client string
	// Ratio is all servers ready over the slowest alone.
	Ratio              float64
	AllAbs, SlowestAbs time.Duration
	// VsBare is all ready over the bare go-sdk's all connected.
	VsBare float64
}

// A OneShotRow is one program run per call.
type OneShotRow struct {
	Program string
	Ratio   float64
	Abs     time.Duration
}

// Markdown renders the table as Markdown.
func (t *Table) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("Run %s on %s, in %s", t.Started.UTC().Format("2006-01-02 15:04 MST"), t.Machine, t.Elapsed.Round(time.Second))
	if t.LoadStart != "" {
		p("; load average %s at the start, %s at the end", t.LoadStart, t.LoadEnd)
	}
	p(".\n")
	if len(t.Calls) > 0 {
		p("\nTool calls on a go-sdk Streamable HTTP server on loopback (echo tool); time per call as a ratio to the bare go-sdk client, median of interleaved rounds:\n\n")
		p("| path | seq per call | 8-way per call | allocs/call | KB/call | new conns /1000 calls | seq (abs) | 8-way (abs) |\n")
		p("|---|---|---|---|---|---|---|---|\n")
	}
	for _, r := range t.Calls {
		if r.Note != "" {
			p("| %s | - | - | - | - | - | %s | |\n", r.Path, r.Note)
			continue
		}
		allocs, kb := "-", "-"
		if r.Allocs >= 0 {
			allocs, kb = fmt.Sprintf("%.0f", r.Allocs), fmt.Sprintf("%.1f", r.AllocBytes/1024)
		}
		p("| %s | %.2f | %.2f | %s | %s | %.1f | %s | %s |\n", r.Path, r.Seq, r.Par, allocs, kb, r.ConnsPer1000, micros(r.SeqAbs), micros(r.ParAbs))
	}
	if len(t.Catalog) > 0 {
		p("\nConnect + list of %d tools (200-character descriptions, 5-property schemas), each client in a fresh process:\n\n", t.CatalogTools)
		p("| client | time | peak RSS | time (abs) | peak RSS (abs) |\n|---|---|---|---|---|\n")
	}
	for _, r := range t.Catalog {
		p("| %s | %.2f | %s | %s | %s |\n", r.Path, r.Time, ratioOrDash(r.RSS), micros(r.TimeAbs), mib(r.RSSAbs))
	}
	if len(t.Many) > 0 {
		p("\n%d HTTP servers connected at once (answers delayed 10-50 ms), each client in a fresh process:\n\n", t.ManyServers)
		p("| client | all ready / slowest alone | vs bare go-sdk | all (abs) | slowest alone (abs) |\n|---|---|---|---|---|\n")
	}
	for _, r := range t.Many {
		p("| %s | %.2f | %.2f | %s | %s |\n", r.Client, r.Ratio, r.VsBare, micros(r.AllAbs), micros(r.SlowestAbs))
	}
	if len(t.OneShot) > 0 {
		p("\nOne tool call per process, start to exit:\n\n| program | ratio | abs |\n|---|---|---|\n")
	}
	for _, r := range t.OneShot {
		p("| %s | %.2f | %s |\n", r.Program, r.Ratio, micros(r.Abs))
	}
	if len(t.Sandbox) > 0 {
		p("\nStarting a stdio server (the bench's echo server, a Go binary) to the end of initialize, the default sandbox policy against none; median of interleaved rounds:\n\n| start | ratio | added | abs |\n|---|---|---|---|\n")
	}
	for _, r := range t.Sandbox {
		if r.Note != "" {
			p("| %s | - | - | %s |\n", r.Start, r.Note)
			continue
		}
		p("| %s | %.2f | %s | %s |\n", r.Start, r.Ratio, micros(r.Added), micros(r.Abs))
	}
	t.lazyMarkdown(p)
	t.soakMarkdown(p)
	return b.String()
}

func ratioOrDash(x float64) string {
	if x == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

func mib(n int64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
}

// soakMarkdown renders the soak's samples and its bounds.
func (t *Table) soakMarkdown(p func(string, ...any)) {
	if len(t.Soak) == 0 {
		return
	}
	p("\nSoak: %s. `host serve` sampled (RSS from /proc; heap, goroutines and descriptors from its stats file):\n\n", t.SoakWork)
	p("| at | calls | RSS | Go heap | goroutines | fds | processes below | files kept |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range t.Soak {
		p("| %s | %d | %s | %s | %d | %d | %d | %d |\n", s.At.Round(time.Second), s.Calls, mib(s.RSS), mib(int64(s.HeapInuse)), s.Goroutines, s.FDs, s.Children, s.Files)
	}
	p("\n| bound | want | got | |\n|---|---|---|---|\n")
	for _, c := range t.SoakChecks {
		mark := "ok"
		if !c.OK {
			mark = "**FAILED**"
		}
		p("| %s | %s | %s | %s |\n", c.What, c.Want, c.Got, mark)
	}
}
