# utraced: GNU make build. `make` builds build/utraced; `make check` runs every test.
CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP
LDFLAGS ?=
B       := build

# Pure code: no ptrace, no sockets. Unit tests link only this.
PURE_SRCS := $(wildcard src/util/*.c src/rsp/*.c src/arch/x86/*.c) src/gdb/gdb_signals.c src/gdb/gdb_fileio.c src/gdb/gdb_launch.c
SRCS      := $(PURE_SRCS) $(filter-out $(PURE_SRCS),$(wildcard src/gdb/*.c)) \
	     $(wildcard src/engine/*.c src/endpoint/*.c) src/main.c
PURE_OBJS := $(PURE_SRCS:%.c=$(B)/%.o)
OBJS      := $(SRCS:%.c=$(B)/%.o)

UNIT_SRCS := $(wildcard tests/unit/*_test.c)
UNITS     := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/unit/%)
INFERIORS := $(patsubst tests/inferiors/%.c,$(B)/inferiors/%,$(wildcard tests/inferiors/*.c))
INFERIORS32 := $(patsubst tests/inferiors/%.c,$(B)/inferiors32/%,$(wildcard tests/inferiors/*.c))
TOOLS     := $(B)/tests/rspclient

.PHONY: all check unit e2e demo clean format format-check check-layers inferiors32 bench

all: $(B)/utraced

$(B)/utraced: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/libpure.a: $(PURE_OBJS)
	ar rcs $@ $^

# Everything but main(), for the few tests of tables that name every handler.
$(B)/libutraced.a: $(filter-out $(B)/src/main.o,$(OBJS))
	ar rcs $@ $^

# Unit tests link pure code first; libutraced.a only resolves what remains.
$(B)/tests/unit/%: tests/unit/%.c $(B)/libpure.a $(B)/libutraced.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -Itests/lib -o $@ $< $(B)/libpure.a $(B)/libutraced.a

$(B)/tests/rspclient: tests/lib/rspclient.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# Test programs: no optimisation, full debug info, like a user's debug build.
$(B)/inferiors/%: tests/inferiors/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -g -O0 -pthread -o $@ $<

$(B)/inferiors32/%: tests/inferiors/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -m32 -g -O0 -pthread -o $@ $<

inferiors32: $(INFERIORS32)

# Installs what the tests need when it is missing (root, Debian), then runs all tests.
check: all $(UNITS) $(INFERIORS) $(TOOLS) check-layers
	@tests/lib/deps.sh
	prove -f $(UNITS) tests/e2e/*.t

unit: $(UNITS)
	prove -f $(UNITS)

demo: all $(B)/inferiors/demo_reader
	@tests/lib/deps.sh
	@demo/run.sh

# Protocol code must not see ptrace; the engine must not see the protocol.
check-layers:
	@! grep -nE '#include .*(ptrace|engine/|gdb/|endpoint/)' src/rsp/*.[ch] src/util/*.[ch] || \
		{ echo "layer violation: rsp/util include engine, gdb or ptrace"; exit 1; }
	@! grep -nE '#include .*(rsp/|gdb/|endpoint/)' src/engine/*.[ch] src/arch/*.h src/arch/x86/*.[ch] || \
		{ echo "layer violation: engine/arch include protocol code"; exit 1; }
	@! grep -nE '(#include <sys/ptrace.h>|ptrace\()' src/gdb/*.[ch] src/endpoint/*.[ch] || \
		{ echo "layer violation: gdb/endpoint use ptrace"; exit 1; }

format:
	clang-format -i $(wildcard src/*.c src/*/*.[ch] src/*/*/*.[ch] tests/unit/*.c tests/lib/*.[ch])

format-check:
	clang-format --dry-run -Werror $(wildcard src/*.c src/*/*.[ch] src/*/*/*.[ch] tests/unit/*.c tests/lib/*.[ch])

bench: all
	bench/run.sh

clean:
	rm -rf $(B)

-include $(OBJS:.o=.d) $(UNITS:=.d)
