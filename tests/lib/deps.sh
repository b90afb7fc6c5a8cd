#!/bin/bash
# Installs what the tests need when it is missing (Debian, as root): gdb to
# drive sessions, lldb-14 as a second client, gdbserver for side-by-side
# checks, gcc-multilib for the 32-bit inferiors, libfuse3-dev (with
# pkg-config, to find it) and fuse3 (fusermount3) for `utraced --mount`,
# libzydis-dev to build at all (the out-of-line step-over decodes
# instructions); man-db, mandoc and bash-completion for the install test. Quiet when everything is there already.
# `deps.sh cross` instead: what make check-cross needs: clang with the
# arm64 cross libc and binutils (not gcc-aarch64-linux-gnu: on amd64 it
# conflicts with gcc-multilib, which the -m32 tests need, and apt would
# remove that), qemu-aarch64 in user mode, gdb-multiarch for the tdesc.
set -u
need=()
if [[ ${1:-} == cross ]]; then
	command -v clang >/dev/null || need+=(clang)
	command -v aarch64-linux-gnu-ld >/dev/null || need+=(binutils-aarch64-linux-gnu)
	[[ -e /usr/aarch64-linux-gnu/include/stdio.h ]] || need+=(libc6-dev-arm64-cross)
	[[ -e /usr/aarch64-linux-gnu/include/asm/ptrace.h ]] || need+=(linux-libc-dev-arm64-cross)
	compgen -G '/usr/lib/gcc-cross/aarch64-linux-gnu/*/libgcc.a' >/dev/null ||
		need+=(libgcc-12-dev-arm64-cross)
	command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
	command -v gdb-multiarch >/dev/null || need+=(gdb-multiarch)
else
	command -v gdb >/dev/null || need+=(gdb)
	command -v gdbserver >/dev/null || need+=(gdbserver)
	command -v prove >/dev/null || need+=(perl)
	command -v strace >/dev/null || need+=(strace)
	# tests/e2e/lldb.t: LLDB as a second client
	command -v lldb-14 >/dev/null || command -v lldb >/dev/null || need+=(lldb-14)
	# x86 only: the -m32 programs, and the decoder of the out-of-line step-over
	if [[ $(uname -m) == x86_64 ]]; then
		[[ -e /usr/lib/gcc/x86_64-linux-gnu/12/32/libgcc.a ]] || need+=(gcc-multilib)
		[[ -e /usr/include/Zydis/Zydis.h ]] || need+=(libzydis-dev)
	fi
	command -v pkg-config >/dev/null || need+=(pkg-config)
	[[ -e /usr/include/fuse3/fuse_lowlevel.h ]] || need+=(libfuse3-dev)
	command -v fusermount3 >/dev/null || need+=(fuse3)
	# tests/e2e/install.t: man pages rendered and linted, bash completion loaded
	command -v man >/dev/null || need+=(man-db)
	command -v mandoc >/dev/null || need+=(mandoc)
	[[ -e /usr/share/bash-completion/bash_completion ]] || need+=(bash-completion)
fi
((${#need[@]})) || exit 0
if [[ $(id -u) != 0 ]]; then
	echo "deps.sh: missing ${need[*]}; install them (apt-get install ${need[*]})" >&2
	exit 1
fi
echo "deps.sh: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq "${need[@]}" >/dev/null
