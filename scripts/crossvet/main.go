// Command crossvet runs go vet's analyzers over packages type-checked for
// the GOOS and GOARCH in its environment, from source: it is how
// scripts/lint.sh vets the module for Windows and macOS.
//
// go vet type-checks a package against its dependencies' export data,
// which it gets by compiling every dependency, the standard library
// included, for the target platform: with empty caches that compile was
// most of the cross-vets' time (windows/amd64 49 s, darwin/arm64 46 s on
// two cores). crossvet loads the same packages, test files included, with
// golang.org/x/tools/go/packages and type-checks them and their
// dependencies from source, which needs no compiler, and runs the same
// analyzers through golang.org/x/tools/go/analysis/multichecker.
//
// The analyzers are go vet's, and crossvet checks that they still are: it
// compares their names with the list `go tool vet help` prints and stops
// if they differ (a Go release that adds or drops one), before it loads
// anything.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/multichecker"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/hostport"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
)

// vet is cmd/vet's list of analyzers.
var vet = []*analysis.Analyzer{
	appends.Analyzer, asmdecl.Analyzer, assign.Analyzer, atomic.Analyzer,
	bools.Analyzer, buildtag.Analyzer, cgocall.Analyzer, composite.Analyzer,
	copylock.Analyzer, defers.Analyzer, directive.Analyzer, errorsas.Analyzer,
	framepointer.Analyzer, hostport.Analyzer, httpresponse.Analyzer,
	ifaceassert.Analyzer, loopclosure.Analyzer, lostcancel.Analyzer,
	nilfunc.Analyzer, printf.Analyzer, shift.Analyzer, sigchanyzer.Analyzer,
	slog.Analyzer, stdmethods.Analyzer, stdversion.Analyzer,
	stringintconv.Analyzer, structtag.Analyzer, testinggoroutine.Analyzer,
	tests.Analyzer, timeformat.Analyzer, unmarshal.Analyzer,
	unreachable.Analyzer, unsafeptr.Analyzer, unusedresult.Analyzer,
	waitgroup.Analyzer,
}

func main() {
	if err := sameAsGoVet(); err != nil {
		fmt.Fprintln(os.Stderr, "crossvet:", err)
		os.Exit(2)
	}
	multichecker.Main(vet...)
}

// sameAsGoVet compares vet's names with the analyzers `go tool vet help`
// lists under "Registered analyzers:".
func sameAsGoVet() error {
	cmd := exec.Command("go", "tool", "vet", "help")
	cmd.Env = append(os.Environ(), "GOOS=", "GOARCH=") // the host's vet binary
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go tool vet help: %v\n%s", err, out)
	}
	_, list, ok := bytes.Cut(out, []byte("Registered analyzers:\n"))
	if !ok {
		return fmt.Errorf("go tool vet help lists no \"Registered analyzers:\":\n%s", out)
	}
	var want []string
	for _, line := range strings.Split(string(list), "\n") {
		if !strings.HasPrefix(line, "    ") {
			if len(want) > 0 {
				break
			}
			continue
		}
		want = append(want, strings.Fields(line)[0])
	}
	var have []string
	for _, a := range vet {
		have = append(have, a.Name)
	}
	slices.Sort(want)
	slices.Sort(have)
	if !slices.Equal(have, want) {
		return fmt.Errorf("the analyzers differ from go vet's: go tool vet help lists %v, crossvet runs %v (update scripts/crossvet/main.go)", want, have)
	}
	return nil
}
