//go:build amd64

#include "textflag.h"

// func rdseed64(retries int) (v uint64, ok bool)
TEXT ·rdseed64(SB), NOSPLIT, $0-17
	MOVQ retries+0(FP), CX
	TESTQ CX, CX
	JLE  fail
loop:
	// RDSEED AX (0F C7 /7 with REX.W); CF=1 when a seed was delivered.
	BYTE $0x48; BYTE $0x0f; BYTE $0xc7; BYTE $0xf8
	JCS  done
	PAUSE
	DECQ CX
	JNZ  loop
fail:
	MOVQ $0, v+8(FP)
	MOVB $0, ok+16(FP)
	RET
done:
	MOVQ AX, v+8(FP)
	MOVB $1, ok+16(FP)
	RET
