package session_test

import (
	"github.com/mcp-host/mcp-host/internal/cputime"

	"testing"
	"time"
)

// cpuMeter reports the process's CPU time per operation of a benchmark.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{cputime.Process()} }

func (m cpuMeter) report(b *testing.B) {
	if used := cputime.Process() - m.start; used > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
