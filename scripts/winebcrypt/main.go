// Command winebcrypt writes bcryptprimitives.dll for running Go's Windows
// test binaries under Wine (scripts/wine-test.sh): a PE32+ DLL with no code
// whose one export, ProcessPrng, forwards to advapi32.SystemFunction036
// (RtlGenRandom, which fills a buffer and returns TRUE, as ProcessPrng
// does). Go's runtime loads ProcessPrng from bcryptprimitives.dll at start
// and stops with "bcryptprimitives.dll not found" without it; Wine 8.0,
// Debian bookworm's, does not ship that DLL.
//
// Usage: go run ./scripts/winebcrypt $WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
package main

import (
	"encoding/binary"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: winebcrypt out.dll")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], dll(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// dll returns the DLL's bytes: headers in the first 512 bytes, one
// read-only section holding the export directory in the next 512.
func dll() []byte {
	const (
		fileAlign = 0x200
		secRVA    = 0x1000
	)
	le := binary.LittleEndian
	img := make([]byte, 2*fileAlign)
	// DOS header.
	copy(img, "MZ")
	le.PutUint32(img[0x3c:], 0x40)
	copy(img[0x40:], "PE\x00\x00")
	// COFF header.
	coff := img[0x44:]
	le.PutUint16(coff[0:], 0x8664) // AMD64
	le.PutUint16(coff[2:], 1)      // sections
	le.PutUint16(coff[16:], 0xf0)  // optional header size
	le.PutUint16(coff[18:], 0x2022)
	// Export section content.
	sec := img[fileAlign:]
	const (
		eat     = 40
		names   = eat + 4
		ords    = names + 4
		dllName = ords + 2
	)
	put := func(off int, s string) int { copy(sec[off:], s+"\x00"); return off + len(s) + 1 }
	fnName := put(dllName, "bcryptprimitives.dll")
	fwd := put(fnName, "ProcessPrng")
	end := put(fwd, "advapi32.SystemFunction036")
	le.PutUint32(sec[12:], secRVA+dllName)
	le.PutUint32(sec[16:], 1) // ordinal base
	le.PutUint32(sec[20:], 1) // functions
	le.PutUint32(sec[24:], 1) // names
	le.PutUint32(sec[28:], secRVA+eat)
	le.PutUint32(sec[32:], secRVA+names)
	le.PutUint32(sec[36:], secRVA+ords)
	le.PutUint32(sec[eat:], uint32(secRVA+fwd)) // inside the export directory: a forwarder
	le.PutUint32(sec[names:], uint32(secRVA+fnName))
	// Optional header (PE32+).
	opt := img[0x58:]
	le.PutUint16(opt[0:], 0x20b)
	opt[2] = 14
	le.PutUint32(opt[8:], fileAlign) // initialized data
	le.PutUint32(opt[20:], secRVA)   // base of code
	le.PutUint64(opt[24:], 0x180000000)
	le.PutUint32(opt[32:], 0x1000)    // section alignment
	le.PutUint32(opt[36:], fileAlign) // file alignment
	le.PutUint16(opt[40:], 6)         // OS version
	le.PutUint16(opt[48:], 6)         // subsystem version
	le.PutUint32(opt[56:], 0x2000)    // image size
	le.PutUint32(opt[60:], fileAlign) // headers size
	le.PutUint16(opt[68:], 2)         // GUI subsystem
	le.PutUint16(opt[70:], 0x160)     // high-entropy VA, dynamic base, NX
	le.PutUint64(opt[72:], 0x100000)
	le.PutUint64(opt[80:], 0x1000)
	le.PutUint64(opt[88:], 0x100000)
	le.PutUint64(opt[96:], 0x1000)
	le.PutUint32(opt[108:], 16)          // data directories
	le.PutUint32(opt[112:], secRVA)      // export directory
	le.PutUint32(opt[116:], uint32(end)) // its size
	// Section header.
	sh := img[0x58+0xf0:]
	copy(sh, ".rdata")
	le.PutUint32(sh[8:], uint32(end)) // virtual size
	le.PutUint32(sh[12:], secRVA)
	le.PutUint32(sh[16:], fileAlign) // raw size
	le.PutUint32(sh[20:], fileAlign) // raw offset
	le.PutUint32(sh[36:], 0x40000040)
	return img
}
