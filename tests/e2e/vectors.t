#!/bin/bash
# vectors loads 0x11111111, 0x22222222, ... 0x88888888 into ymm0 (xmm0
# alone without AVX) and stops in vector_stop.  gdb must read those values
# and write new ones, which the program then prints.
. "$(dirname "$0")/../lib/e2e.sh"

PROG=$INFDIR/vectors
LOADED4='0x11111111, 0x22222222, 0x33333333, 0x44444444'
LOADED8="$LOADED4, 0x55555555, 0x66666666, 0x77777777, 0x88888888"
WRITTEN4='0x12345678, 0x22222222, 0x33333333, 0x44444444'
WRITTEN8="$WRITTEN4, 0x55555555, 0x66666666, 0x77777777, 0x7eadbeef"

launch "$PROG"
remote_gdb "$PROG" 'break vector_stop' continue 'print have_avx' \
	'info registers xmm0' 'p $ymm0' 'p/x $ymm0.v8_int32' \
	'set $xmm0.v4_int32[0] = 0x12345678' 'set $ymm0.v8_int32[7] = 0x7eadbeef' \
	'p/x $xmm0.v4_int32' 'p/x $ymm0.v8_int32' continue
like "$GDB_OUT" "^Breakpoint 1, vector_stop \\(\\) at .*vectors\\.c:" 'stopped in vector_stop'
avx=$(sed -n 's/^\$1 = \([01]\)$/\1/p' <<<"$GDB_OUT")
like "$avx" '^[01]$' "the program tells whether it has AVX ($avx)"
like "$GDB_OUT" "^xmm0 +\\{.*v4_int32 = \\{$LOADED4\\}.*uint128 = 0x44444444333333332222222211111111\\}\$" \
	'info registers xmm0: the loaded values'
like "$GDB_OUT" "= \\{$WRITTEN4\\}\$" 'xmm0 after the write'
if [[ $avx == 1 ]]; then
	like "$GDB_OUT" '^\$2 = \{.*v8_int32 = \{286331153, 572662306, 858993459, 1145324612, 1431655765, 1717986918, 2004318071, -2004318072\}' \
		'p $ymm0: the loaded values'
	like "$GDB_OUT" "= \\{$LOADED8\\}\$" 'p/x $ymm0.v8_int32: the loaded values'
	like "$GDB_OUT" "= \\{$WRITTEN8\\}\$" 'ymm0 after the writes'
	want="$WRITTEN8"
else
	skip 3 'no AVX: no ymm0'
	want="$WRITTEN4"
fi
exited_with 0 'after the writes'
want=$(sed 's/0x//g; s/,//g' <<<"$want")
like "$(program_output)" "^seen: $want\$" 'the program sees the values gdb wrote'

done_testing
