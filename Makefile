# utrace build.  `make` builds build/utrace and build/libutrace.so;
# `make test` runs every test tier; `make demo` traces examples/.
# SAN=1 builds the tool and unit tests with AddressSanitizer + UBSan
# into build-san/.  `make fuzz` builds the libFuzzer harnesses of
# tests/fuzz/ with clang into build-fuzz/ and runs each FUZZ_TIME seconds.

CC      ?= gcc
SAN     ?=
# Quiet by default ("  CC file"); make V=1 shows the commands.
V       ?=
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif
# make -s is silent: no "  CC file" lines either
ifneq ($(findstring s,$(filter-out -%,$(firstword $(MAKEFLAGS)))),)
say = @true
endif
ifeq ($(SAN),1)
B       := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
B       := build
SANFLAGS :=
endif

WARN    := -Wall -Wextra -Werror -Wno-unused-parameter
GEN     := build-gen
CFLAGS_COMMON := -std=gnu11 -O2 -g $(WARN) -D_GNU_SOURCE -I. -Iinclude -I$(GEN)
# libfuse3 (lib/tracefs): its headers live in their own folder
FUSE_CFLAGS := -I/usr/include/fuse3
TOOL_CFLAGS := $(CFLAGS_COMMON) $(SANFLAGS) $(FUSE_CFLAGS)
# No calls to memset/memcpy made up by the optimiser from plain loops in the
# runtime (they use vector registers): gcc and clang spell that differently.
cc-option = $(shell $(CC) -Werror $(1) -c -x c /dev/null -o /dev/null 2>/dev/null && echo $(1))
RT_NOLIBCALL := $(or $(call cc-option,-fno-tree-loop-distribute-patterns),-fno-builtin-memset -fno-builtin-memcpy)
# The runtime runs inside the traced program, on its stack, between its
# instructions: no SSE (the trampolines then need not save vector argument
# registers), initial-exec TLS (one %fs-relative load), nothing exported
# but the interposed libc/libgcc entry points.
RT_CFLAGS := $(CFLAGS_COMMON) -fPIC -fvisibility=hidden -mgeneral-regs-only \
	-ftls-model=initial-exec -fno-stack-protector -fno-omit-frame-pointer $(RT_NOLIBCALL)

LIB_SRC  := $(sort $(wildcard lib/*/*.c))
CMD_SRC  := $(sort $(wildcard cmds/*.c)) utrace.c
RT_SRC   := $(sort $(wildcard runtime/*.c))
RT_ASM   := $(sort $(wildcard arch/x86_64/*.S))
# ELF section lookup is shared by the runtime and the tool.
RT_SHARED := lib/elf/elf.c

LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(B)/%.o)
RT_OBJ   := $(RT_SRC:%.c=$(B)/rt/%.o) $(RT_ASM:%.S=$(B)/rt/%.o) $(RT_SHARED:%.c=$(B)/rt/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

LDLIBS_TOOL := -ltraceevent -lbpf -ldw -lelf -lZydis -lfuse3 -lz -lstdc++ -ldl -lpthread -lm

VERSION := $(shell cat VERSION)
# Installation (make install PREFIX=/usr DESTDIR=/tmp/pkg)
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(PREFIX)/bin
LIBDIR  := $(PREFIX)/lib
INCDIR  := $(PREFIX)/include
MANDIR  := $(PREFIX)/share/man
PCDIR   := $(LIBDIR)/pkgconfig
COMPDIR := $(PREFIX)/share/bash-completion/completions
# the tracepoint example utrace-tracepoints(7) points at
EXDIR   := $(PREFIX)/share/utrace/examples
EXAMPLES := examples/demo_events.h examples/wordfreq.c
# Man pages: docs/NAME.md whose first line is "# NAME(SECTION)", converted
# with go-md2man (its title block is "% NAME SECTION").
MAN_SRC := $(sort $(wildcard docs/utrace*.md))
MAN_OUT := $(foreach f,$(MAN_SRC),$(B)/man/$(shell sed -n '1s/^# \([-a-z]*\)(\([0-9]\))$$/\1.\2/p' $(f)))

.PHONY: all clean test test-unit test-e2e test-kernel test-diff test-ui test-hostile test-ftracetest test-bt stress demo man install uninstall bench deps format san unit-bins
.PHONY: fuzz fuzz-bins
all: $(B)/utrace $(B)/libutrace.so $(B)/gcc-as/as

# utrace's assembler fix for gcc's call-site records (utrace cflags adds
# -B for the gccs that need it; scripts/utrace-as says why)
$(B)/gcc-as/as: scripts/utrace-as
	@mkdir -p $(dir $@)
	$(Q)install -m 755 $< $@

# The names of the machine's system calls (.syscall in hist triggers), from
# the kernel headers the compiler sees: no table typed by hand (GEN is on
# every compiler's include path, see CFLAGS_COMMON).
$(GEN)/syscall_table.h:
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)echo '#include <asm/unistd.h>' | $(CC) -dM -E - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/\t[\2] = "\1",/p' | sort -t'[' -k2 -n >$@.tmp
	$(Q)test -s $@.tmp && mv $@.tmp $@
$(B)/lib/base/syscall_names.o: $(GEN)/syscall_table.h

$(B)/utrace.o: TOOL_CFLAGS += -DUTRACE_VERSION='"$(VERSION)"'
$(B)/utrace.o: VERSION
$(B)/cmds/bt.o: TOOL_CFLAGS += -DUTRACE_VERSION='"$(VERSION)"'
$(B)/cmds/bt.o: VERSION

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(TOOL_CFLAGS) -MMD -MP -c $< -o $@

$(B)/rt/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC-RT,$<)
	$(Q)$(CC) $(RT_CFLAGS) -DUTRACE_RUNTIME -MMD -MP -c $< -o $@

$(B)/rt/%.o: %.S
	@mkdir -p $(dir $@)
	$(call say,AS,$<)
	$(Q)$(CC) $(RT_CFLAGS) -MMD -MP -c $< -o $@

$(B)/libutrace-tool.a: $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(B)/utrace: $(CMD_OBJ) $(B)/libutrace-tool.a
	$(call say,LINK,$@)
	$(Q)$(CC) $(TOOL_CFLAGS) -o $@ $(CMD_OBJ) $(B)/libutrace-tool.a $(LDLIBS_TOOL)

$(B)/libutrace.so: $(RT_OBJ)
	$(call say,LINK,$@)
	$(Q)$(CC) -shared -Wl,-soname,libutrace.so -Wl,-z,now -Wl,-z,noexecstack -Wl,-z,initfirst \
		-o $@ $^ -ldl -lpthread

$(B)/tests/%: tests/unit/%.c $(B)/libutrace-tool.a
	@mkdir -p $(dir $@)
	$(call say,TEST,$<)
	$(Q)$(CC) $(TOOL_CFLAGS) -MMD -MP -o $@ $< $(B)/libutrace-tool.a $(LDLIBS_TOOL)

# test_bt_builtins and test_bt_load start a command (-c) with the runtime it finds beside
# the tests, $(B)/libutrace.so: built for it in build-san too (SAN=1
# leaves the runtime as it is)
$(B)/tests/test_bt_builtins: $(B)/libutrace.so
$(B)/tests/test_bt_load: $(B)/libutrace.so

unit-bins: $(UNIT_BIN)

test-unit: $(UNIT_BIN)
	@tests/run-unit.sh $(B)

test-e2e: all
	@tests/e2e/run.sh $(B)

test-kernel: all
	@tests/kernel/run.sh $(B)

test-diff: all
	@tests/diff/run.sh $(B)

test-hostile: all
	@tests/hostile/run.sh $(B)

test-ui: all
	@tests/ui/run.sh $(B)

test-ftracetest: all
	@tests/ftracetest/run.sh $(B)

test-bt: all
	@tests/bt/run.sh $(B)

# The differential stress test with more seeds: make stress SEEDS=500
SEEDS ?= 100
stress: all
	@STRESS_COUNT=$(SEEDS) tests/stress/run.sh $(B)

# The README's test command: installs what is missing, builds, runs every
# tier (unit tests also under ASan+UBSan); the last line is
# "N passed, N failed".  make test T=NAME: one test (tests/run-one.sh).
ifdef T
test: all
	@tests/run-one.sh $(B) $(T)
else
test:
	@scripts/install-deps.sh test
	@$(MAKE) --no-print-directory all unit-bins
	@$(MAKE) --no-print-directory SAN=1 unit-bins
	@tests/run-all.sh $(B)
endif

san:
	$(MAKE) SAN=1 test-unit

# libFuzzer harnesses (tests/fuzz/): the libraries again, built by clang
# with the fuzzer's coverage and ASan + UBSan (UB aborts, so the fuzzer
# sees it), into build-fuzz/.  `make fuzz` runs each harness FUZZ_TIME
# seconds after replaying its regression inputs (tests/fuzz/run.sh).
FUZZ_CC   ?= clang
FUZZ_TIME ?= 20
FB        := build-fuzz
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := $(CFLAGS_COMMON) $(FUSE_CFLAGS) -O1 $(FUZZ_SAN)
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(FB)/%)
$(FB)/lib/base/syscall_names.o: $(GEN)/syscall_table.h
FUZZ_OBJ  := $(LIB_SRC:%.c=$(FB)/%.o)

$(FB)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC-FUZZ,$<)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FB)/libutrace-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(FB)/fuzz_%: tests/fuzz/fuzz_%.c $(FB)/libutrace-fuzz.a
	$(call say,FUZZER,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< $(FB)/libutrace-fuzz.a \
		$(LDLIBS_TOOL)

fuzz-bins: $(FUZZ_BIN)

fuzz: all
	@FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run.sh $(B)

# Man pages from docs/, by go-md2man.
man: $(MAN_OUT)

$(B)/man/%: $(MAN_SRC) scripts/md2man.sh
	@mkdir -p $(dir $@)
	$(call say,MAN,$@)
	$(Q)src=$$(grep -l "^# $(basename $(notdir $@))($(subst .,,$(suffix $@)))$$" $(MAN_SRC) | head -1); \
	scripts/md2man.sh $$src $@ $(VERSION)

# utrace.pc names PREFIX: rebuilt when PREFIX differs from the last build's
$(B)/prefix.stamp: FORCE
	@mkdir -p $(B)
	@echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' >$@

$(B)/utrace.pc: utrace.pc.in VERSION $(B)/prefix.stamp
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$${prefix}/lib|; s|@INCLUDEDIR@|$${prefix}/include|; s|@VERSION@|$(VERSION)|' $< >$@

# The tool, the runtime (also the library of -lutrace), the headers, the
# man pages, utrace.pc and the bash completion, under DESTDIR/PREFIX.
install: all man $(B)/utrace.pc
	install -D -m 755 $(B)/utrace $(DESTDIR)$(BINDIR)/utrace
	install -D -m 755 $(B)/libutrace.so $(DESTDIR)$(LIBDIR)/libutrace.so
	install -D -m 755 scripts/utrace-as $(DESTDIR)$(LIBDIR)/utrace/gcc-as/as
	install -d $(DESTDIR)$(INCDIR)/utrace
	install -m 644 include/utrace/*.h $(DESTDIR)$(INCDIR)/utrace/
	for m in $(MAN_OUT); do \
		install -D -m 644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/$$(basename $$m); done
	install -D -m 644 $(B)/utrace.pc $(DESTDIR)$(PCDIR)/utrace.pc
	install -D -m 644 scripts/utrace-completion.bash $(DESTDIR)$(COMPDIR)/utrace
	install -d $(DESTDIR)$(EXDIR)
	install -m 644 $(EXAMPLES) $(DESTDIR)$(EXDIR)/
	@# a program linked with -lutrace finds the library at once (not
	@# into a DESTDIR: the packager's ldconfig runs on the real system)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		ldconfig; fi

FORCE:

# Removes what install put there (and the folders it made, when empty).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/utrace $(DESTDIR)$(LIBDIR)/libutrace.so \
		$(DESTDIR)$(LIBDIR)/utrace/gcc-as/as $(DESTDIR)$(PCDIR)/utrace.pc \
		$(DESTDIR)$(COMPDIR)/utrace
	rm -f $(addprefix $(DESTDIR)$(EXDIR)/,$(notdir $(EXAMPLES)))
	rm -f $(addprefix $(DESTDIR)$(INCDIR)/utrace/,$(notdir $(wildcard include/utrace/*.h)))
	for m in $(notdir $(MAN_OUT)); do rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; done
	-rmdir $(DESTDIR)$(EXDIR) $(DESTDIR)$(PREFIX)/share/utrace $(DESTDIR)$(LIBDIR)/utrace/gcc-as $(DESTDIR)$(LIBDIR)/utrace $(DESTDIR)$(INCDIR)/utrace 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then \
		ldconfig; fi

# The README's demo command.
demo:
	@scripts/install-deps.sh build
	@$(MAKE) --no-print-directory -s all
	@examples/demo.sh $(B)

bench:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory -s all
	@bench/run.sh $(B)
	@bench/reader.sh $(B)
	@bench/procs_mem.sh $(B)
	@bench/hotpaths.sh $(B)

deps:
	@scripts/install-deps.sh test

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-san build-fuzz build-gen

-include $(shell find $(B) $(if $(filter fuzz%,$(MAKECMDGOALS)),$(FB)) -name '*.d' 2>/dev/null)
