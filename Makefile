# SPDX-License-Identifier: GPL-2.0
# iolens build.  `make` builds build/iolens; `make run` starts the main job;
# `make test` runs every test.  Each target first installs what is missing.

OUT		?= build
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux
# A prebuilt vmlinux.h may be given instead of generating one from BTF.
VMLINUX_H	?= $(OUT)/vmlinux.h
CLANG		?= clang
BPFTOOL		?= bpftool
CC		?= cc
PYTHON		?= /usr/bin/python3
VERSION		:= 0.1.0
ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS		?= -O2 -g
CFLAGS		+= -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
		   -DIOLENS_VERSION='"$(VERSION)"' -Iinclude -I$(OUT)
BPF_CFLAGS	:= -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
		   -Wall -Werror -Iinclude -I$(dir $(VMLINUX_H))
LDLIBS		:= -lbpf -lelf -lz -lncursesw -lm -luring -laio -lblkid -lmicrohttpd -lpthread

BPF_OBJS	:= $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(wildcard bpf/*.bpf.c))
SKELS		:= $(BPF_OBJS:.bpf.o=.skel.h)
SRCS		:= $(wildcard src/*.c)
OBJS		:= $(patsubst src/%.c,$(OUT)/%.o,$(SRCS))
LIB_OBJS	:= $(filter-out $(OUT)/main.o,$(OBJS))
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))

.PHONY: all run test unit systest deps clean
.DELETE_ON_ERROR:
.SECONDARY:

all: $(OUT)/iolens

deps: $(OUT)/.deps-build
$(OUT)/.deps-%: tools/install-deps.sh
	@mkdir -p $(OUT)
	tools/install-deps.sh $*
	@touch $@

$(OUT)/vmlinux.h: | $(OUT)/.deps-build
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h) include/iolens.h $(VMLINUX_H) | $(OUT)/.deps-build
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $(*F)) > $@

$(OUT)/%.o: src/%.c $(wildcard include/*.h) $(SKELS) | $(OUT)/.deps-build
	$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/iolens: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(OUT)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

run: $(OUT)/iolens
	$(OUT)/iolens top

unit: $(UNIT_BINS)
	@for t in $(UNIT_BINS); do $$t || exit 1; done

systest: $(OUT)/iolens $(OUT)/.deps-test
	IOLENS=$(abspath $(OUT)/iolens) $(PYTHON) -m pytest -p no:cacheprovider tests/system

test: unit systest

clean:
	rm -rf $(OUT)
