#include "textflag.h"

// func int80(nr, a1, a2, a3 uintptr) uintptr
// A system call through the i386 ABI (int $0x80), which x86-64 kernels
// with IA32 emulation still serve: a seccomp filter that judges only the
// native ABI's numbers lets it through.
TEXT ·int80(SB),NOSPLIT,$0-40
	MOVQ nr+0(FP), AX
	MOVQ a1+8(FP), BX
	MOVQ a2+16(FP), CX
	MOVQ a3+24(FP), DX
	INT $0x80
	MOVQ AX, ret+32(FP)
	RET
