# fuzz.mk: the libFuzzer harnesses of fuzz/ (included by the Makefile).
#
# Two builds of every harness fuzz/NAME_fuzz.c, each with every object of
# utraced rebuilt with ASan and UBSan (a memory error in an uninstrumented
# object would go unseen):
#   build/fuzz/bin/NAME_fuzz     clang and libFuzzer: `make fuzz` runs each for
#                                FUZZ_SECONDS from the committed corpus
#                                fuzz/corpus/NAME/; findings go to
#                                build/fuzz/artifacts/;
#   build/fuzz/replay/NAME_fuzz  $(CC) (gcc on CI, no clang) with
#                                fuzz/replay_main.c: `make check` replays every
#                                committed input through it (fuzz/replay.t).
# See docs/reliability.md.

FUZZ_NAMES   := rsp_codec gdb_dispatch agent trc_wire ustrace_opts pty_session
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= $(firstword $(shell command -v clang-14 clang 2>/dev/null) clang)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_BASE    := -std=gnu11 -g -O1 -MMD -MP -fno-omit-frame-pointer -Wall -Wextra -Werror \
		-D_GNU_SOURCE $(FUZZ_SAN) -Isrc -Itests/lib -Itests/unit -Ifuzz -I$(B)/gen
FZ           := $(B)/fuzz
# Harnesses that run a gdb session on the fake kernel (fuzz/fuzz_world.c).
FUZZ_WORLD   := gdb_dispatch pty_session

FUZZ_SRCS    := $(filter-out src/main.c src/ustrace/ustrace_main.c,$(SRCS) \
		$(wildcard src/strace/*.c src/ustrace/*.c))
FUZZ_REPLAYS := $(FUZZ_NAMES:%=$(FZ)/replay/%_fuzz)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FZ)/bin/%_fuzz)
FUZZ_LINK    := $(FUSE_LIBS) $(ZYDIS_LIBS) -ldl

.PHONY: fuzz fuzz-build

# The tracer's objects include generated tables: named one by one, as a
# pattern rule without a recipe would not add the prerequisite (it cancels).
FUZZ_TRC_SRCS := $(filter src/strace/% src/ustrace/%,$(FUZZ_SRCS))
$(FUZZ_TRC_SRCS:%.c=$(FZ)/obj/%.o) $(FUZZ_TRC_SRCS:%.c=$(FZ)/robj/%.o): | $(TRC_GEN)
# The harness objects are not intermediate files: keep them between builds.
.SECONDARY: $(patsubst fuzz/%.c,$(FZ)/obj/fuzz/%.o,$(wildcard fuzz/*.c)) \
	    $(patsubst fuzz/%.c,$(FZ)/robj/fuzz/%.o,$(wildcard fuzz/*.c))

# The small /proc that qXfer:osdata reads in the dispatcher harnesses (fuzz_world.c).
$(FZ)/obj/fuzz/fuzz_world.o $(FZ)/robj/fuzz/fuzz_world.o: \
	FUZZ_BASE += -DFUZZ_PROC_ROOT='"$(CURDIR)/fuzz/proc"'

# ---- $(FZ)/robj: $(CC), for the replay ----

$(FZ)/robj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_BASE) -c -o $@ $<
$(FZ)/robj/src/endpoint/ep_fuse.o: FUZZ_BASE += $(FUSE_CFLAGS)

# (the in-process agent's blobs are data: their plain objects do)
$(FZ)/libreplay.a: $(FUZZ_SRCS:%.c=$(FZ)/robj/%.o) $(AGENT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(FZ)/replay/%_fuzz: $(FZ)/robj/fuzz/%_fuzz.o $(FZ)/robj/fuzz/replay_main.o $(FZ)/libreplay.a
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_SAN) -o $@ $(filter %.o,$^) $(FZ)/libreplay.a $(FUZZ_LINK)
$(FUZZ_WORLD:%=$(FZ)/replay/%_fuzz): $(FZ)/robj/fuzz/fuzz_world.o \
	$(FZ)/robj/tests/lib/fake_kernel.o

# ---- $(FZ)/obj: clang with libFuzzer's coverage, for `make fuzz` ----

$(FZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_BASE) -fsanitize=fuzzer-no-link -c -o $@ $<
$(FZ)/obj/src/endpoint/ep_fuse.o: FUZZ_BASE += $(FUSE_CFLAGS)

$(FZ)/libfuzzed.a: $(FUZZ_SRCS:%.c=$(FZ)/obj/%.o) $(AGENT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(FZ)/bin/%_fuzz: $(FZ)/obj/fuzz/%_fuzz.o $(FZ)/libfuzzed.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(FZ)/libfuzzed.a $(FUZZ_LINK)
$(FUZZ_WORLD:%=$(FZ)/bin/%_fuzz): $(FZ)/obj/fuzz/fuzz_world.o $(FZ)/obj/tests/lib/fake_kernel.o

fuzz-build:
	@command -v $(FUZZ_CC) >/dev/null || \
		{ echo "make fuzz needs clang with libFuzzer: apt-get install clang-14"; exit 1; }
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

# Each harness for FUZZ_SECONDS; new inputs go to build/fuzz/corpus/NAME, findings
# to build/fuzz/artifacts/. The committed corpus is only read. The codec and
# ustrace's options get inputs shorter than the recorded sessions of the seeds:
# their cost is per byte, and no path of theirs needs more (docs/reliability.md).
fuzz: fuzz-build
	@for n in $(FUZZ_NAMES); do \
		mkdir -p $(FZ)/corpus/$$n $(FZ)/artifacts; \
		case $$n in rsp_codec) len=-max_len=512;; ustrace_opts) len=-max_len=256;; \
			*) len=;; esac; \
		echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
		$(FZ)/bin/$${n}_fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 $$len \
			-artifact_prefix=$(FZ)/artifacts/$$n- $(FZ)/corpus/$$n fuzz/corpus/$$n \
			2>$(FZ)/$$n.log || { tail -n 40 $(FZ)/$$n.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units' $(FZ)/$$n.log; \
	done

-include $(wildcard $(FZ)/obj/*/*.d $(FZ)/obj/*/*/*.d $(FZ)/obj/*/*/*/*.d \
		    $(FZ)/robj/*/*.d $(FZ)/robj/*/*/*.d $(FZ)/robj/*/*/*/*.d)
