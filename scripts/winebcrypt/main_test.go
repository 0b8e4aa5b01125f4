package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"testing"
)

// TestDLLForwardsProcessPrng parses the DLL as a PE loader would: an AMD64
// DLL whose export directory names bcryptprimitives.dll and exports
// ProcessPrng as a forwarder to advapi32.SystemFunction036.
func TestDLLForwardsProcessPrng(t *testing.T) {
	f, err := pe.NewFile(bytes.NewReader(dll()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || f.Characteristics&pe.IMAGE_FILE_DLL == 0 {
		t.Fatalf("machine %#x, characteristics %#x: want an AMD64 DLL", f.Machine, f.Characteristics)
	}
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		t.Fatal("not PE32+")
	}
	exp := oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
	sec := f.Sections[0]
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	at := func(rva uint32) []byte { return data[rva-sec.VirtualAddress:] }
	cstr := func(rva uint32) string { b := at(rva); return string(b[:bytes.IndexByte(b, 0)]) }
	dir := at(exp.VirtualAddress)
	le := binary.LittleEndian
	if got := cstr(le.Uint32(dir[12:])); got != "bcryptprimitives.dll" {
		t.Errorf("DLL name %q", got)
	}
	if n, names := le.Uint32(dir[20:]), le.Uint32(dir[24:]); n != 1 || names != 1 {
		t.Fatalf("%d functions, %d names; want 1 and 1", n, names)
	}
	name := cstr(le.Uint32(at(le.Uint32(dir[32:]))))
	ord := le.Uint16(at(le.Uint32(dir[36:])))
	fn := le.Uint32(at(le.Uint32(dir[28:]))[4*ord:])
	if name != "ProcessPrng" {
		t.Errorf("export %q", name)
	}
	// An address inside the export directory is a forwarder string.
	if fn < exp.VirtualAddress || fn >= exp.VirtualAddress+exp.Size {
		t.Fatalf("ProcessPrng at %#x is not a forwarder (export directory %#x+%#x)", fn, exp.VirtualAddress, exp.Size)
	}
	if got := cstr(fn); got != "advapi32.SystemFunction036" {
		t.Errorf("ProcessPrng forwards to %q", got)
	}
}
