# utraced: GNU make build. `make` builds build/utraced; `make check` runs every test.
CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP
LDFLAGS ?=
B       := build

# The CPU: this machine's, or another with Debian's cross compiler
# (`make ARCH=aarch64`: CROSS=aarch64-linux-gnu-, into build-aarch64/).
# src/arch/ has x86 (x86-64 with i386 programs) and arm64 (docs/arm64.md).
HOST_ARCH := $(shell uname -m)
ARCH      ?= $(HOST_ARCH)
override ARCH := $(patsubst arm64,aarch64,$(patsubst amd64,x86_64,$(ARCH)))
# Debian's gcc-aarch64-linux-gnu conflicts with gcc-multilib (the -m32
# builds): without it, clang targets the CPU with the same cross libc.
ifneq ($(ARCH),$(HOST_ARCH))
CROSS     ?= $(ARCH)-linux-gnu-
CC        := $(if $(shell command -v $(CROSS)gcc),$(CROSS)gcc,clang --target=$(ARCH)-linux-gnu)
B         := build-$(ARCH)
endif
ARCH_DIR  := $(if $(filter aarch64,$(ARCH)),arm64,x86)
# One version for the binaries, the man pages and the package (debian/changelog is checked
# against it by tests/e2e/install.t).
VERSION := $(shell cat VERSION)

# `make check` and `make demo` install what they need first (tests/lib/deps.sh),
# so that a fresh machine has libfuse3-dev before FUSE support is looked for.
ifneq ($(filter check demo,$(MAKECMDGOALS)),)
$(shell tests/lib/deps.sh >&2)
endif
# --mount needs libfuse3 (pkg-config fuse3); without it utraced builds without --mount.
FUSE_LIBS   := $(if $(CROSS),,$(shell pkg-config --libs fuse3 2>/dev/null))
FUSE_CFLAGS := $(if $(FUSE_LIBS),$(shell pkg-config --cflags fuse3),-DUTRACED_NO_FUSE)
# Zydis decodes x86 instructions for the out-of-line step-over (src/arch/x86/x86_xol.c).
ZYDIS_LIBS  := $(if $(filter x86,$(ARCH_DIR)),-lZydis)

# Pure code: no ptrace, no sockets. Unit tests link only this.
PURE_SRCS := $(wildcard src/util/*.c src/rsp/*.c src/arch/$(ARCH_DIR)/*.c src/agent/*.c) src/gdb/gdb_signals.c src/gdb/gdb_fileio.c src/gdb/gdb_launch.c \
	     src/gdb/gdb_tp_store.c
SRCS      := $(PURE_SRCS) $(filter-out $(PURE_SRCS),$(wildcard src/gdb/*.c)) \
	     $(wildcard src/engine/*.c src/endpoint/*.c) src/main.c
AGENT_OBJS := $(B)/gen/agent_inproc_blob.o $(B)/gen/agent_inproc32_blob.o
PURE_OBJS := $(PURE_SRCS:%.c=$(B)/%.o) $(AGENT_OBJS)
OBJS      := $(SRCS:%.c=$(B)/%.o) $(AGENT_OBJS)

# ustrace: the strace core (src/strace/, pure) and its command line (src/ustrace/).
# Syscall names, errno names and the decoder table are generated from the
# kernel headers and src/strace/trc_syscalls.in by src/strace/trc_gen.sh.
TRC_OBJS  := $(patsubst %.c,$(B)/%.o,$(wildcard src/strace/*.c))
UST_OBJS  := $(patsubst %.c,$(B)/%.o,$(wildcard src/ustrace/*.c))
TRC_GEN   := $(addprefix $(B)/gen/,trc_names_64.h trc_names_32.h trc_errnames.h trc_specs.h trc_decoders.h)
ASM_DIR   ?= $(firstword $(wildcard /usr/include/x86_64-linux-gnu/asm /usr/include/asm))
# arm64 has one syscall table, asm-generic's (through asm/unistd.h, whose
# numbers are partly macros of macros: the compiler resolves them).
ifeq ($(ARCH_DIR),arm64)
TRC_UNISTD_64 := $(B)/gen/unistd_64.dump
TRC_UNISTD_32 := /dev/null
else
TRC_UNISTD_64 := $(ASM_DIR)/unistd_64.h
TRC_UNISTD_32 := $(ASM_DIR)/unistd_32.h
endif

# Each CPU's own unit tests are built where it is the target; the arm64
# ones also here on x86-64 (its pure code, built for the host).
OTHER_CPU := $(if $(filter x86,$(ARCH_DIR)),,tests/unit/x86_%)
UNIT_SRCS := $(filter-out $(OTHER_CPU),$(wildcard tests/unit/*_test.c))
UNITS     := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/unit/%)
INFERIORS := $(patsubst tests/inferiors/%.c,$(B)/inferiors/%,$(wildcard tests/inferiors/*.c)) \
	     $(B)/inferiors/tls_vars_static
# 32-bit programs (-m32): x86 only (arm64 builds no AArch32 programs).
INFERIORS32 := $(if $(filter x86,$(ARCH_DIR)),$(patsubst tests/inferiors/%.c,$(B)/inferiors32/%,$(wildcard tests/inferiors/*.c)))
TOOLS     := $(B)/tests/rspclient $(B)/tests/hw_watch_probe $(B)/utraced-crashtest

.PHONY: all man install uninstall check-deb check check-load check-strace unit e2e demo clean format format-check check-layers inferiors32 bench check-vm vm-build print-e2e32 check-cross

all: $(B)/utraced $(B)/ustrace $(MANS)

# The daemon runs the strace core itself for trace sessions (src/gdb/gdb_trace.c).
$(B)/utraced: $(OBJS) $(TRC_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(FUSE_LIBS) $(ZYDIS_LIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# --version / -V print the VERSION file's text; rebuilt when it changes.
$(B)/src/main.o $(B)/src/ustrace/ustrace_main.o: CFLAGS += -DUTRACED_VERSION='"$(VERSION)"'
$(B)/src/main.o $(B)/src/ustrace/ustrace_main.o: VERSION

# The in-process agent (src/agent/inproc/): the evaluator built again as
# freestanding position-independent code for utraced to copy into a traced
# process. No libc, no SSE (the program's vector registers stay as they
# are), r15 never touched (the trampoline's frame pointer); blob_gen.sh
# checks that two links at different bases are the same bytes.
AGENT_BLOB_CFLAGS := -std=gnu11 -O2 -g0 -ffreestanding -fPIC -fvisibility=hidden -nostdlib -static \
	-mgeneral-regs-only -ffixed-r15 -fno-stack-protector -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -ffunction-sections -fdata-sections -fcf-protection=none \
	-DAGENT_FREESTANDING -D_GNU_SOURCE -Wall -Wextra -Werror \
	-Wl,--gc-sections -Wl,--build-id=none -Wl,-T,src/agent/inproc/agent_inproc.ld
AGENT_BLOB_SRCS := src/agent/inproc/agent_inproc.c src/agent/agent_expr.c
$(B)/agent/agent_inproc.%.elf: $(AGENT_BLOB_SRCS) src/agent/inproc/agent_inproc.ld $(wildcard src/agent/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(AGENT_BLOB_CFLAGS) -Wl,--defsym=AGENT_BASE=$* -o $@ $(AGENT_BLOB_SRCS)
$(B)/agent/agent_inproc.%.bin: $(B)/agent/agent_inproc.%.elf
	objcopy -O binary -j .text -j .rodata $< $@
ifeq ($(ARCH_DIR),x86)
$(B)/gen/agent_inproc_blob.c: $(B)/agent/agent_inproc.0.bin $(B)/agent/agent_inproc.0x10000.bin src/agent/inproc/blob_gen.sh
	@mkdir -p $(dir $@)
	src/agent/inproc/blob_gen.sh $(B)/agent/agent_inproc.0.elf $(B)/agent/agent_inproc.0.bin $(B)/agent/agent_inproc.0x10000.bin >$@
else
# The agent is x86 code: another CPU has none (its arch_desc.patch is
# false, so nothing maps it), and an empty blob says so.
$(B)/gen/agent_inproc_blob.c $(B)/gen/agent_inproc32_blob.c:
	@mkdir -p $(dir $@)
	printf '%s\n' '/* No in-process agent for this CPU (docs/arm64.md): arch_desc.patch is false. */' \
		'#include "agent/agent_inproc.h"' 'const unsigned char $(basename $(notdir $@))[1];' \
		'const unsigned long $(basename $(notdir $@))_len = 0;' >$@
endif
$(B)/gen/agent_inproc_blob.o $(B)/gen/agent_inproc32_blob.o: $(B)/gen/%.o: $(B)/gen/%.c
	$(CC) $(CFLAGS) -Isrc -c -o $@ $<
.PRECIOUS: $(B)/agent/agent_inproc.%.elf $(B)/agent/agent_inproc.%.bin

# The same agent for i386 (a 32-bit process's): esi the fixed frame pointer
# (no r15 there), its own 64-bit divisions (libgcc's use esi). utraced maps
# it into 32-bit processes (x86_patch.c's i386 trampoline); tested against
# the evaluator built for i386 by tests/unit32/agent_inproc_i386 (docs/agent.md).
AGENT32_BLOB_CFLAGS := $(subst -ffixed-r15,-ffixed-esi,$(AGENT_BLOB_CFLAGS)) -m32
$(B)/agent32/agent_inproc.%.elf: $(AGENT_BLOB_SRCS) src/agent/inproc/agent_inproc.ld $(wildcard src/agent/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(AGENT32_BLOB_CFLAGS) -Wl,--defsym=AGENT_BASE=$* -o $@ $(AGENT_BLOB_SRCS)
$(B)/agent32/agent_inproc.%.bin: $(B)/agent32/agent_inproc.%.elf
	objcopy -O binary -j .text -j .rodata $< $@
ifeq ($(ARCH_DIR),x86)
$(B)/gen/agent_inproc32_blob.c: $(B)/agent32/agent_inproc.0.bin $(B)/agent32/agent_inproc.0x10000.bin src/agent/inproc/blob_gen.sh
	@mkdir -p $(dir $@)
	src/agent/inproc/blob_gen.sh $(B)/agent32/agent_inproc.0.elf $(B)/agent32/agent_inproc.0.bin $(B)/agent32/agent_inproc.0x10000.bin agent_inproc32_blob >$@
endif
$(B)/tests/unit32/agent_inproc_i386: tests/unit32/agent_inproc_i386.c src/agent/agent_expr.c src/agent/agent_printf.c $(B)/gen/agent_inproc32_blob.c $(wildcard src/agent/*.h) tests/lib/tap.h tests/unit/agent_blob.h
	@mkdir -p $(dir $@)
	$(CC) -m32 -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc -Itests/lib -Itests/unit -o $@ \
		tests/unit32/agent_inproc_i386.c src/agent/agent_expr.c src/agent/agent_printf.c \
		$(B)/gen/agent_inproc32_blob.c
.PRECIOUS: $(B)/agent32/agent_inproc.%.elf $(B)/agent32/agent_inproc.%.bin

# A test build that crashes on demand (src/engine/crash.c, tests/e2e/crash_restore.t):
# the files with crash points compiled again with them, linked with the others.
CRASH_SRCS := $(shell grep -lE 'CRASH_POINT|TEST_DELAY' $(SRCS))
CRASH_OBJS := $(CRASH_SRCS:%.c=$(B)/crashtest/%.o)
$(B)/crashtest/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DUTRACED_CRASH_POINTS -c -o $@ $<
$(B)/utraced-crashtest: $(filter-out $(CRASH_SRCS:%.c=$(B)/%.o),$(OBJS)) $(CRASH_OBJS) $(TRC_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(FUSE_LIBS) $(ZYDIS_LIBS)

# ep_fuse.o is rebuilt when libfuse3 comes or goes ($(B)/fuse.flags changes).
$(B)/src/endpoint/ep_fuse.o: CFLAGS += $(FUSE_CFLAGS)
$(B)/src/endpoint/ep_fuse.o: $(B)/fuse.flags
$(B)/fuse.flags: FORCE
	@mkdir -p $(B)
	@echo '$(FUSE_CFLAGS) $(FUSE_LIBS)' | cmp -s - $@ || echo '$(FUSE_CFLAGS) $(FUSE_LIBS)' >$@
FORCE:

$(B)/gen/trc_names_64.h: $(TRC_UNISTD_64) src/strace/trc_gen.sh
	@mkdir -p $(dir $@)
	src/strace/trc_gen.sh names $< >$@
$(B)/gen/trc_names_32.h: $(TRC_UNISTD_32) src/strace/trc_gen.sh
	@mkdir -p $(dir $@)
	src/strace/trc_gen.sh names $< >$@
$(B)/gen/unistd_64.dump:
	@mkdir -p $(dir $@)
	echo '#include <asm/unistd.h>' | $(CC) -E -dM -x c - >$@
$(B)/gen/trc_errnames.h: src/strace/trc_gen.sh
	@mkdir -p $(dir $@)
	src/strace/trc_gen.sh errnos /usr/include/asm-generic/errno-base.h /usr/include/asm-generic/errno.h >$@
$(B)/gen/trc_specs.h $(B)/gen/trc_decoders.h: $(B)/gen/%.h: src/strace/trc_syscalls.in src/strace/trc_gen.sh
	@mkdir -p $(dir $@)
	src/strace/trc_gen.sh $(if $(findstring specs,$*),specs,decoders) $< >$@
$(TRC_OBJS): CFLAGS += -I$(B)/gen
$(TRC_OBJS): | $(TRC_GEN)
$(B)/src/strace/trc_sysent.o: $(TRC_GEN)

$(B)/libtrc.a: $(TRC_OBJS)
	rm -f $@
	ar rcs $@ $^
$(B)/libust.a: $(filter-out $(B)/src/ustrace/ustrace_main.o,$(UST_OBJS))
	rm -f $@
	ar rcs $@ $^

$(B)/ustrace: $(B)/src/ustrace/ustrace_main.o $(B)/libust.a $(B)/libtrc.a $(B)/libpure.a $(B)/libutraced.a
	$(CC) $(LDFLAGS) -o $@ $^ $(FUSE_LIBS) $(ZYDIS_LIBS)

$(B)/libpure.a: $(PURE_OBJS)
	rm -f $@
	ar rcs $@ $^

# Everything but main(), for the few tests of tables that name every handler.
$(B)/libutraced.a: $(filter-out $(B)/src/main.o,$(OBJS))
	rm -f $@
	ar rcs $@ $^

# ---------------------------------------------------------------- install
# Man pages: mdoc sources in man/, the version and date filled in here.
PREFIX         ?= /usr/local
BINDIR         ?= $(PREFIX)/bin
MANDIR         ?= $(PREFIX)/share/man
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR    ?= $(PREFIX)/share/bash-completion/completions
MANS      := $(B)/man/utraced.1 $(B)/man/ustrace.1
MAN_DATE  := $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} '+%B %-d, %Y')

man: $(MANS)
$(B)/man/%.1: man/%.1.in VERSION
	@mkdir -p $(dir $@)
	sed -e 's/@VERSION@/$(VERSION)/' -e 's/@DATE@/$(MAN_DATE)/' $< >$@
$(B)/utraced.service: dist/utraced.service
	@mkdir -p $(dir $@)
	sed 's|/usr/local/bin/utraced|$(BINDIR)/utraced|' $< >$@

install: all $(MANS) $(B)/utraced.service
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(B)/utraced $(B)/ustrace $(DESTDIR)$(BINDIR)/
	install -m 644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(B)/utraced.service $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 644 completion/utraced completion/ustrace $(DESTDIR)$(BASHCOMPDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/utraced $(DESTDIR)$(BINDIR)/ustrace
	rm -f $(DESTDIR)$(MANDIR)/man1/utraced.1 $(DESTDIR)$(MANDIR)/man1/ustrace.1
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/utraced.service
	rm -f $(DESTDIR)$(BASHCOMPDIR)/utraced $(DESTDIR)$(BASHCOMPDIR)/ustrace

# elf_func_test's landing-pad case needs an LSDA: a cleanup under exceptions.
$(B)/tests/unit/elf_func_test: CFLAGS += -fexceptions

# Unit tests link pure code first; libutraced.a only resolves what remains
# (and what it needs in turn: gdb_trace.o the strace core).
# x86_xol_test runs its i386 forms in this 32-bit child where the kernel runs
# 32-bit programs (make check-vm): no libc in it, so no multilib to build it.
$(B)/tests/unit/x86_xol_child32: tests/unit/x86_xol_child32.S
	@mkdir -p $(dir $@)
	$(CC) -m32 -nostdlib -static -no-pie -Wl,--build-id=none -o $@ $<
$(B)/tests/unit/x86_xol_test: $(B)/tests/unit/x86_xol_child32

$(B)/tests/unit/%: tests/unit/%.c $(B)/libust.a $(B)/libtrc.a $(B)/libpure.a $(B)/libutraced.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -Itests/lib -o $@ $< $(filter %.o,$^) $(B)/libust.a $(B)/libtrc.a $(B)/libpure.a $(B)/libutraced.a $(B)/libtrc.a $(B)/libpure.a $(FUSE_LIBS) $(ZYDIS_LIBS)

# arm64's pure code is unit-tested on any host: on another CPU built for
# it with UTRACED_ARCH_ARM64 (src/arch/arm64/ has its own structures).
ARM64_SRCS := $(wildcard src/arch/arm64/*.c)
$(B)/tests/unit/arm64_%: tests/unit/arm64_%.c $(ARM64_SRCS) $(wildcard src/arch/arm64/*.h) src/arch/arch.h tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -DUTRACED_ARCH_ARM64 -Isrc -Itests/lib -o $@ $< $(ARM64_SRCS) -lpthread

# The engine unit tests run on a fake kernel: its ptrace(), waitpid() and
# poll() come before the libraries, so the engine calls them, not libc's.
$(filter $(B)/tests/unit/engine_%,$(UNITS)): $(B)/tests/lib/fake_kernel.o
$(B)/tests/lib/fake_kernel.o: CFLAGS += -Isrc -Itests/lib

# The gdb handler tests run a session on that fake kernel, in the fuzz
# harnesses' world (fuzz/fuzz_world.c: its guard keeps the handlers off
# real files and processes); tests/unit/gdb_world.h is the client's side.
GDB_WORLD_UNITS := $(addprefix $(B)/tests/unit/,gdb_resume_test gdb_stop_test gdb_procs_test gdb_session_test)
$(GDB_WORLD_UNITS): $(B)/tests/lib/fake_kernel.o $(B)/tests/lib/fuzz_world.o
$(GDB_WORLD_UNITS): CFLAGS += -Ifuzz
$(B)/tests/lib/fuzz_world.o: fuzz/fuzz_world.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -Itests/lib -Ifuzz -DFUZZ_PROC_ROOT='"$(CURDIR)/fuzz/proc"' -c -o $@ $<

$(B)/tests/%: tests/lib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# Test programs: no optimisation, full debug info, like a user's debug build.
$(B)/inferiors/%: tests/inferiors/%.c $(wildcard tests/inferiors/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O0 -pthread -o $@ $<

# TLS with no link map (gdb then asks qGetTLSAddr with LM 0): tests/e2e/tls.t.
$(B)/inferiors/tls_vars_static: tests/inferiors/tls_vars.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O0 -pthread -static -o $@ $<

$(B)/inferiors32/%: tests/inferiors/%.c $(wildcard tests/inferiors/*.h)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -m32 -g -O0 -pthread -o $@ $<

inferiors32: $(INFERIORS32)

# E2E32: the end-to-end tests that also run against 32-bit (-m32) programs.
E2E32 := attach_reader attach_signal attach_chains launch_break signals threads vectors engines_two_gdb catch_syscall ustrace_gdb thread_events \
	agent_cond agent_dprintf agent_nonstop xol_cond xol_engines
E2E32_TESTS := $(wildcard $(patsubst %,tests/e2e/%.t,$(E2E32)))

# libFuzzer harnesses: `make fuzz`; their corpus replay is part of `make check`.
include fuzz/fuzz.mk

# Installs what the tests need when it is missing (root, Debian), then runs all tests.
# The 32-bit run is skipped, and says so, on a kernel without 32-bit emulation.
check: all $(UNITS) $(INFERIORS) $(TOOLS) $(FUZZ_REPLAYS) check-layers
	@tests/lib/deps.sh
	@$(MAKE) --no-print-directory inferiors32
	prove -f $(UNITS) fuzz/replay.t tests/e2e/*.t
	@# (a line of its own: the programs of a recipe line that runs make
	@# inherit make's jobserver fds, and the test programs must not)
	@if [ -n "$(INFERIORS32)" ] && tests/lib/kernel_runs.sh $(B)/inferiors32; then \
		$(MAKE) --no-print-directory $(B)/tests/unit32/agent_inproc_i386; \
	fi
	@if [ -z "$(INFERIORS32)" ]; then \
		echo "32-bit end-to-end tests skipped: no 32-bit personality on $(ARCH)"; \
	elif tests/lib/kernel_runs.sh $(B)/inferiors32; then \
		prove -f $(B)/tests/unit32/agent_inproc_i386 && \
		echo INFDIR=$(B)/inferiors32 prove -f $(E2E32_TESTS) && \
		INFDIR=$(B)/inferiors32 prove -f $(E2E32_TESTS); \
	else \
		echo "32-bit end-to-end tests skipped: this kernel does not run 32-bit programs"; \
	fi

# The Debian package, built, installed, used and removed (tests/deb/deb.t): slow.
check-deb: all $(B)/inferiors/breakloop
	prove -v tests/deb/deb.t

# ustrace against strace 6.1's own test suite (tests/strace/suite.t): fetches and
# builds strace's sources once (~10 minutes, cached in $$STRACETS), then ~1 minute
# a run (2 with STRACE_TOO=1); STRACE_TOO=1 runs strace beside it (the second column), STRACE_TESTS a subset.
check-strace: all $(B)/tests/rspclient
	prove -v tests/strace/suite.t

# The load and kill tests (tests/load/): long, so not in `check`. LOAD_SECONDS,
# LOAD_KILLS and LOAD_PROCS shorten or lengthen them (docs/reliability.md).
check-load: all $(INFERIORS) $(TOOLS)
	prove -v tests/load/*.t

# The VM lane (tests/vm/, docs/testing.md): a Debian guest under QEMU runs what
# this machine's kernel cannot (32-bit programs, hardware watchpoints). Not in `check`.
check-vm:
	tests/vm/run.sh
# What the guest builds (tests/vm/guest.sh), and the 32-bit set it runs.
vm-build: all $(INFERIORS) $(INFERIORS32) $(TOOLS) $(filter $(B)/tests/unit/x86_xol_test,$(UNITS))
print-e2e32:
	@echo $(E2E32_TESTS)

# The arm64 build from this machine (docs/arm64.md): utraced and ustrace
# cross-built into build-aarch64/, and the unit tests of pure code run
# under qemu-aarch64 in user mode (which has no ptrace: nothing that
# traces). Not in `check`: it installs a cross compiler and QEMU.
CROSS_UNITS := arm64_regs_test arm64_tdesc_test rsp_codec_test rsp_client_test agent_expr_test \
	       agent_parse_test agent_printf_test trc_stream_test trc_decode_test trc_wire_test \
	       ustrace_opts_test gdb_signals_test \
	       gdb_fileio_test engine_rules_test engine_steps_test gdb_procs_test gdb_session_test \
	       gdb_stop_test gdb_resume_test arm64_dregs_test
check-cross:
	@tests/lib/deps.sh cross
	$(MAKE) --no-print-directory ARCH=aarch64 build-aarch64/utraced build-aarch64/ustrace \
		$(CROSS_UNITS:%=build-aarch64/tests/unit/%)
	QEMU_LD_PREFIX=/usr/aarch64-linux-gnu prove -f --exec qemu-aarch64 $(CROSS_UNITS:%=build-aarch64/tests/unit/%)
	B=build-aarch64 prove -f tests/cross/smoke.t

unit: $(UNITS)
	prove -f $(UNITS)

demo: all $(B)/inferiors/demo_reader
	@tests/lib/deps.sh
	@demo/run.sh

# Protocol code must not see ptrace; the engine must not see the protocol;
# the engine's wait loop does not call its engines (the hosts detach them
# first: engine_detach_all); a CPU's names stay in its src/arch/ folder.
check-layers:
	@! grep -nE '#include .*(ptrace|engine/|gdb/|endpoint/)' src/rsp/*.[ch] src/util/*.[ch] || \
		{ echo "layer violation: rsp/util include engine, gdb or ptrace"; exit 1; }
	@! grep -nE '#include .*(rsp/|gdb/|endpoint/)' src/engine/*.[ch] src/arch/*.h src/arch/*/*.[ch] || \
		{ echo "layer violation: engine/arch include protocol code"; exit 1; }
	@! grep -nE '(#include <sys/ptrace.h>|ptrace\()' src/gdb/*.[ch] src/endpoint/*.[ch] || \
		{ echo "layer violation: gdb/endpoint use ptrace"; exit 1; }
	@! grep -nE '#include .*(ptrace|engine/|gdb/|endpoint/|ustrace/)' src/strace/*.[ch] || \
		{ echo "layer violation: the strace core includes engine or ptrace code"; exit 1; }
	@! grep -nE '(#include .*(ptrace|engine/|gdb/|endpoint/)|ptrace\()' src/agent/*.[ch] || \
		{ echo "layer violation: agent expressions include engine, gdb or ptrace code"; exit 1; }
	@! grep -nE '\bengine_[a-z_]+\(' src/engine/waitloop.c || \
		{ echo "layer violation: the wait loop (engine/waitloop.c) calls up into the engines"; exit 1; }
	@tests/lib/arch_names.sh || \
		{ echo "layer violation: a CPU's names outside its src/arch/ folder (tests/lib/arch_names.sh)"; exit 1; }

format:
	clang-format -i $(wildcard src/*.c src/*/*.[ch] src/*/*/*.[ch] tests/unit/*.c tests/unit32/*.c tests/lib/*.[ch] fuzz/*.[ch])

format-check:
	clang-format --dry-run -Werror $(wildcard src/*.c src/*/*.[ch] src/*/*/*.[ch] tests/unit/*.c tests/unit32/*.c tests/lib/*.[ch] fuzz/*.[ch])

bench: all
	bench/run.sh

clean:
	rm -rf $(B)

-include $(OBJS:.o=.d) $(UNITS:=.d) $(B)/tests/lib/fake_kernel.d $(B)/tests/lib/fuzz_world.d $(TRC_OBJS:.o=.d) $(UST_OBJS:.o=.d) $(CRASH_OBJS:.o=.d)
