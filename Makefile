# SPDX-License-Identifier: GPL-2.0
# iolens build.  `make` builds build/iolens; `make run` starts the main job;
# `make test` runs every test.  Each target first installs what is missing.
# `make install` (PREFIX, DESTDIR), `make uninstall`, `make deb`; V=1 shows
# the commands; EXTRA_CFLAGS and EXTRA_LDFLAGS are added to the compiler's.

OUT		?= build
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux
# A prebuilt vmlinux.h may be given instead of generating one from BTF.
VMLINUX_H	?= $(OUT)/vmlinux.h
CLANG		?= clang
BPFTOOL		?= bpftool
CC		?= cc
PYTHON		?= /usr/bin/python3
VERSION		:= 0.1.0
# The commit built from, for --version; "unknown" outside a git checkout.
GIT_COMMIT	:= $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS		?= -O2 -g
# -iquote .: userspace reads each BPF object's ABI header as "bpf/NAME.h".
CFLAGS		+= -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
		   -DIOLENS_VERSION='"$(VERSION)"' -Iinclude -iquote . -I$(OUT) \
		   -MMD -MP $(EXTRA_CFLAGS)
BPF_CFLAGS	:= -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
		   -Wall -Werror -I$(dir $(VMLINUX_H)) -MMD -MP
LDLIBS		:= -lbpf -lelf -lz -lncursesw -lm -luring -laio -lblkid -lmicrohttpd -lmd -lxxhash -lpthread
LDFLAGS		+= $(EXTRA_LDFLAGS)

# Where `make install` puts things: the binary in sbin (it needs root or
# CAP_BPF), man pages in section 8, completions where bash-completion, zsh
# and fish look for vendor ones, the serve unit (installed, not enabled).
PREFIX		?= /usr/local
DESTDIR		?=
SBINDIR		:= $(PREFIX)/sbin
MANDIR		:= $(PREFIX)/share/man/man8
BASHCOMPDIR	:= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR	:= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR	:= $(PREFIX)/share/fish/vendor_completions.d
UNITDIR		:= $(PREFIX)/lib/systemd/system
# The fleet kit: Prometheus rules and a Grafana dashboard for serve.
FLEETDIR	:= $(PREFIX)/share/iolens/fleet
FLEET		:= prometheus/iolens.rules.yml prometheus/iolens.rules.test.yml \
		   grafana/iolens.json
# A command is its src/cli/cmd_NAME.c (its row of the command table).
COMMANDS	:= $(sort $(patsubst src/cli/cmd_%.c,%,$(wildcard src/cli/cmd_*.c)))
MANPAGES	:= $(OUT)/man/iolens.8 $(COMMANDS:%=$(OUT)/man/iolens-%.8)
COMPLETIONS	:= $(OUT)/completions/iolens.bash $(OUT)/completions/_iolens \
		   $(OUT)/completions/iolens.fish

# Quiet unless V=1: one line a step, as the kernel's build prints.
ifeq ($(V),1)
Q		:=
msg		=
else
Q		:= @
msg		= @printf '  %-8s %s\n' $(1) $(2);
endif

BPF_OBJS	:= $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(wildcard bpf/*.bpf.c))
SKELS		:= $(BPF_OBJS:.bpf.o=.skel.h)
SRCS		:= $(shell find src -name '*.c' | sort)
OBJS		:= $(patsubst %.c,$(OUT)/%.o,$(SRCS))
LIB_OBJS	:= $(filter-out $(OUT)/src/cli/main.o,$(OBJS))
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))

# Fuzzing (libFuzzer) and the unit tests again under ASan and UBSan, in a
# build of their own by clang: $(SAN_OUT).  Each target tests/fuzz/fuzz_NAME.c
# has its seed corpus in tests/fuzz/corpus/NAME.
SAN_OUT		:= $(OUT)/san
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
SAN_MAKE	= $(MAKE) --no-print-directory OUT=$(SAN_OUT) CC=$(CLANG) \
		  EXTRA_CFLAGS="$(SAN_FLAGS) -fsanitize=fuzzer-no-link"
FUZZ_NAMES	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS	?= 60

.PHONY: all run test check unit systest kmatrix check-layers deps clean test-shake \
	lib-objs san-unit san-systest fuzz-bins fuzz-replay fuzz \
	man completions install uninstall deb FORCE
.DELETE_ON_ERROR:
.SECONDARY:

all: $(OUT)/iolens

deps: $(OUT)/.deps-build
$(OUT)/.deps-%: tools/install-deps.sh
	@mkdir -p $(OUT)
	tools/install-deps.sh $*
	@touch $@

$(OUT)/vmlinux.h: | $(OUT)/.deps-build
	$(call msg,GEN,$@)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUT)/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H) | $(OUT)/.deps-build
	$(call msg,BPF,$@)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)$(BPFTOOL) gen skeleton $< name $(notdir $(*F)) > $@

# The commit goes into main.o alone, rebuilt when the stamp says it changed.
$(OUT)/commit.stamp: FORCE
	@mkdir -p $(OUT)
	@echo '$(GIT_COMMIT)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(OUT)/src/cli/main.o: $(OUT)/commit.stamp
$(OUT)/src/cli/main.o: CFLAGS += -DIOLENS_COMMIT='"git $(GIT_COMMIT)"'

# Each loader includes its own skeleton, which must exist before the first
# compile; after it, -MMD's dependency files say what else each object reads.
$(OUT)/src/trace/block_trace.o: $(OUT)/block.skel.h
$(OUT)/src/trace/agg_trace.o: $(OUT)/agg.skel.h
$(OUT)/src/trace/check_trace.o: $(OUT)/check.skel.h
$(OUT)/src/trace/task_trace.o: $(OUT)/tasks.skel.h

$(OUT)/src/%.o: src/%.c | $(OUT)/.deps-build
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/iolens: $(OBJS)
	$(call msg,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(OUT)/.deps-test
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

# What test_tasks.py runs: the task scan alone, as iolens links it.
$(OUT)/tests/task_probe: tests/system/task_probe.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

# The disk that fails where a test says (tests/system/faultfs.c): FUSE.
$(OUT)/tests/faultfs: tests/system/faultfs.c | $(OUT)/.deps-test
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(CFLAGS) $$(pkg-config --cflags fuse3) $(LDFLAGS) -o $@ $< \
		$$(pkg-config --libs fuse3)

lib-objs: $(LIB_OBJS)

# Only in $(SAN_OUT), where CC is clang with the sanitizers.
$(OUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(LIB_OBJS) $(LDLIBS)

san-unit: | $(OUT)/.deps-test
	$(SAN_MAKE) unit

# The system tests again, with iolens and the task probe built with ASan
# and UBSan; tests marked `nosan` measure memory or time and are left out,
# and so are those of tests/system/san_skip.txt, whose every line of C the
# others run too (tools/san_selection.py writes it).
san-systest: $(OUT)/fio-examples/VERSION | $(OUT)/.deps-test
	$(SAN_MAKE) LDFLAGS="$(SAN_FLAGS)" $(SAN_OUT)/iolens $(SAN_OUT)/tests/task_probe \
		$(SAN_OUT)/tests/faultfs
	IOLENS=$(abspath $(SAN_OUT)/iolens) FIO_EXAMPLES=$(abspath $(OUT)/fio-examples) \
		IOLENS_SAN_SKIP=$(abspath tests/system/san_skip.txt) \
		$(PYTHON) -m pytest -p no:cacheprovider \
		-m "not matrix and not nosan" tests/system

fuzz-bins: | $(OUT)/.deps-test
	$(SAN_MAKE) $(FUZZ_NAMES:%=$(SAN_OUT)/fuzz/fuzz_%)

# Every input of every corpus once: a crash found once stays fixed.
fuzz-replay: fuzz-bins
	@for n in $(FUZZ_NAMES); do \
		$(SAN_OUT)/fuzz/fuzz_$$n -runs=0 -close_fd_mask=2 tests/fuzz/corpus/$$n || exit 1; \
	done

# A bounded search, FUZZ_SECONDS a target; new inputs go to $(SAN_OUT)/corpus
# (copy the ones worth keeping into tests/fuzz/corpus), findings beside them.
fuzz: fuzz-bins
	@for n in $(FUZZ_NAMES); do \
		mkdir -p $(SAN_OUT)/corpus/$$n && \
		$(SAN_OUT)/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=2 \
			-artifact_prefix=$(SAN_OUT)/corpus/$$n- \
			$(SAN_OUT)/corpus/$$n tests/fuzz/corpus/$$n || exit 1; \
	done

run: $(OUT)/iolens
	$(OUT)/iolens top

# Includes run cli -> features -> trace -> ABI, lib from all, and no two
# object files call each other (tools/check_layers.py says the rules).
check-layers: $(OUT)/iolens
	$(PYTHON) tools/check_layers.py $(OUT)

unit: $(UNIT_BINS)
	@for t in $(UNIT_BINS); do $$t || exit 1; done

# fio's own job files (examples/ of its source package), which
# test_load_fio_examples.py runs under fio and iolens load.
$(OUT)/fio-examples/VERSION: tools/fetch-fio-examples.sh | $(OUT)/.deps-test
	tools/fetch-fio-examples.sh $(OUT)/fio-examples

# Tests marked `matrix` need what only the kernel matrix's guests have
# (device-mapper, md): they run there, not here.
systest: $(OUT)/iolens $(OUT)/tests/task_probe $(OUT)/tests/faultfs $(OUT)/.deps-test $(OUT)/fio-examples/VERSION
	IOLENS=$(abspath $(OUT)/iolens) FIO_EXAMPLES=$(abspath $(OUT)/fio-examples) \
		$(PYTHON) -m pytest -p no:cacheprovider --durations=25 -m "not matrix" tests/system

# The system tests under adverse timing, a whole run per mode (a CPU hog on
# every CPU, one CPU, a random order, a slow disk): tools/test_shake.py;
# SHAKE=MODE... picks modes.
SHAKE		?=
test-shake: $(OUT)/iolens $(OUT)/tests/task_probe $(OUT)/tests/faultfs $(OUT)/.deps-test $(OUT)/fio-examples/VERSION
	$(PYTHON) tools/test_shake.py $(OUT) $(SHAKE)

# Debian's 6.1 and 6.12 kernels under qemu, with the system tests of each
# BPF object and fallback inside (tests/kernels/run_matrix.py).
VIRTME_NG	:= virtme-ng==1.42
$(OUT)/venv/bin/vng: | $(OUT)/.deps-test
	$(PYTHON) -m venv $(OUT)/venv
	$(OUT)/venv/bin/pip install -q $(VIRTME_NG)

kmatrix: $(OUT)/iolens $(OUT)/tests/task_probe $(OUT)/tests/faultfs $(OUT)/venv/bin/vng
	$(PYTHON) tests/kernels/run_matrix.py $(OUT)

# Each tier in turn, with the time it took (tests/README.md says what each
# runs); the first that fails stops the run.
TIERS		:= check-layers unit san-unit fuzz-replay systest san-systest kmatrix
test:
	@for t in $(TIERS); do \
		s=$$(date +%s); \
		$(MAKE) --no-print-directory $$t || exit 1; \
		echo "make test: $$t passed in $$(( $$(date +%s) - s )) s"; \
	done

# The fast path: unit tests and the system tests marked `fast` (under two minutes).
check: unit $(OUT)/iolens $(OUT)/tests/task_probe $(OUT)/tests/faultfs $(OUT)/.deps-test
	IOLENS=$(abspath $(OUT)/iolens) $(PYTHON) -m pytest -p no:cacheprovider -m "fast and not matrix" tests/system

# Man pages: tools/man/NAME.8.in, their OPTIONS (and iolens(8)'s command
# list) written from the built binary's --help, so they match it.  A
# command without a page of its own gets tools/man/command.8.in, made of
# its --help.
$(OUT)/man/iolens.8: tools/man/iolens.8.in tools/mkman.py $(OUT)/iolens
	@mkdir -p $(dir $@)
	$(call msg,MAN,$@)$(PYTHON) tools/mkman.py $(OUT)/iolens $< $(VERSION) > $@

.SECONDEXPANSION:
$(OUT)/man/iolens-%.8: $$(firstword $$(wildcard tools/man/iolens-$$*.8.in) \
			tools/man/command.8.in) tools/mkman.py $(OUT)/iolens
	@mkdir -p $(dir $@)
	$(call msg,MAN,$@)$(PYTHON) tools/mkman.py $(OUT)/iolens $< $(VERSION) \
		$(if $(filter tools/man/command.8.in,$<),$*) > $@

man: $(MANPAGES)

$(OUT)/completions/iolens.bash: $(OUT)/iolens
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)$(OUT)/iolens completion bash > $@
$(OUT)/completions/_iolens: $(OUT)/iolens
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)$(OUT)/iolens completion zsh > $@
$(OUT)/completions/iolens.fish: $(OUT)/iolens
	@mkdir -p $(dir $@)
	$(call msg,GEN,$@)$(OUT)/iolens completion fish > $@

completions: $(COMPLETIONS)

# The systemd units, tools/NAME.service.
UNITS		:= iolens-serve.service iolens-record.service

install: $(OUT)/iolens $(MANPAGES) $(COMPLETIONS)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(FLEETDIR)/prometheus $(DESTDIR)$(FLEETDIR)/grafana
	for f in $(FLEET); do install -m 0644 fleet/$$f $(DESTDIR)$(FLEETDIR)/$$f || exit 1; done
	install -m 0755 $(OUT)/iolens $(DESTDIR)$(SBINDIR)/iolens
	install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/
	install -m 0644 $(OUT)/completions/iolens.bash $(DESTDIR)$(BASHCOMPDIR)/iolens
	install -m 0644 $(OUT)/completions/_iolens $(DESTDIR)$(ZSHCOMPDIR)/_iolens
	install -m 0644 $(OUT)/completions/iolens.fish $(DESTDIR)$(FISHCOMPDIR)/iolens.fish
	for u in $(UNITS); do \
		sed 's|/usr/local/sbin/iolens|$(SBINDIR)/iolens|' tools/$$u \
			> $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/iolens $(MANPAGES:$(OUT)/man/%=$(DESTDIR)$(MANDIR)/%) \
		$(DESTDIR)$(BASHCOMPDIR)/iolens $(DESTDIR)$(ZSHCOMPDIR)/_iolens \
		$(DESTDIR)$(FISHCOMPDIR)/iolens.fish $(UNITS:%=$(DESTDIR)$(UNITDIR)/%)
	rm -rf $(DESTDIR)$(PREFIX)/share/iolens

# A Debian package from an install under /usr into a staging tree; its
# Depends from dpkg-shlibdeps (tools/mkdeb.sh).
deb: $(OUT)/iolens $(MANPAGES) $(COMPLETIONS) | $(OUT)/.deps-deb
	rm -rf $(OUT)/deb
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR=$(abspath $(OUT)/deb/root)
	tools/mkdeb.sh $(OUT)/deb $(VERSION) $(OUT)

clean:
	rm -rf $(OUT)

-include $(OBJS:.o=.d) $(BPF_OBJS:.o=.d) $(UNIT_BINS:=.d) $(OUT)/tests/task_probe.d
