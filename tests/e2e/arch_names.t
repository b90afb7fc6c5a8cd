#!/bin/bash
# make check-layers' CPU rule (tests/lib/arch_names.sh): the tree passes,
# and a name of either CPU planted where it does not belong is caught,
# in code or in a string, not in a comment.
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
TMP=$(mktemp -d /tmp/arch_names.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
echo "1..8"
n=0
check() { # want(0|1) description file
	n=$((n + 1))
	(cd "$TMP" && "$ROOT/tests/lib/arch_names.sh" "$3" >/dev/null)
	if [ $? -eq "$1" ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
plant() { mkdir -p "$TMP/$(dirname "$1")" && printf '%s\n' "$2" >"$TMP/$1"; }

n=$((n + 1))
if tests/lib/arch_names.sh >/dev/null; then echo "ok $n - the tree keeps its CPU names in src/arch/"; else echo "not ok $n - the tree keeps its CPU names in src/arch/"; fi
plant src/engine/a.c 'long f(struct user_regs_struct *r) { return r->orig_rax; }'
check 1 "x86 register in the engine" src/engine/a.c
plant src/gdb/b.c 'static const char *n = "rsp";'
check 1 "x86 register name as a string in gdb/" src/gdb/b.c
plant src/engine/c.c 'unsigned long n = NT_ARM_HW_WATCH;'
check 1 "arm64 regset in the engine" src/engine/c.c
plant src/arch/arm64/d.c 'int k = ARCH_AMD64;'
check 1 "x86 name in src/arch/arm64/" src/arch/arm64/d.c
plant src/arch/x86/e.c 'struct user_pt_regs r;'
check 1 "arm64 name in src/arch/x86/" src/arch/x86/e.c
plant src/engine/f.c '/* orig_rax, rip: only in a comment */ int x;'
check 0 "a comment may name them" src/engine/f.c
plant src/arch/x86/g.c 'long f(struct user_regs_struct *r) { return r->orig_rax; }'
check 0 "x86 names in src/arch/x86/" src/arch/x86/g.c
