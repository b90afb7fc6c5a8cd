#!/bin/sh
# arch_names.sh: `make check-layers`' CPU rule. Each CPU's own names (its
# registers, regsets, ptrace requests, audit arches, trap bytes) appear
# only in its folder of src/arch/: the engine, the protocol code and the
# tools reach the CPU through src/arch/arch.h. Comments are left out (the
# compiler's preprocessor strips them); code and strings count.
# Usage: arch_names.sh [file...] (default: every .c/.h under src/).
X86='user_regs_struct|user_fpregs_struct|u_debugreg|NT_X86_[A-Z_]+|AUDIT_ARCH_(X86_64|I386)|\bARCH_(AMD64|I386)\b|orig_[re]ax|\b[re]ip\b|\beflags\b|\b[re](ax|bx|cx|dx|si|di|bp)\b|"[re]sp"|\.rsp\b|\.r(8|9|1[0-5])\b|\bfs_base\b|\bgs_base\b|PTRACE_(GET|SET)(REGS|FPREGS|FPXREGS)\b|0xcc\b|\\xcc|\\x0f\\x05|\\xcd\\x80'
ARM64='user_pt_regs|user_fpsimd_state|user_hwdebug_state|NT_ARM_[A-Z_]+|AUDIT_ARCH_AARCH64|\bARCH_ARM64\b|\bpstate\b|\bvregs\b|\bfpsr\b|\bfpcr\b|0xd4200000|0xd4000001'

[ $# -gt 0 ] || set -- $(find src -name '*.[ch]' | sort)
bad=0
for f in "$@"; do
	case "$f" in
	src/arch/x86/*) pat=$ARM64 ;;
	src/arch/arm64/*) pat=$X86 ;;
	# the in-process agent is x86-64 code today (built -mgeneral-regs-only
	# -ffixed-r15, its frame the trampoline's): docs/arm64.md
	src/agent/inproc/* | src/agent/agent_inproc.h) pat=$ARM64 ;;
	*) pat="$X86|$ARM64" ;;
	esac
	hits=$(gcc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null | grep -E "$pat") || continue
	echo "$hits" | sed "s|^|$f: CPU name outside src/arch/: |"
	bad=1
done
exit $bad
