// SPDX-License-Identifier: GPL-2.0
/* top's column table (top/columns.c), layout (top/layout.c), graphs
 * (top/graph.c) and frame (top/frame.c): cells, sort order, the tree,
 * filters and the hit ratio, on rows made here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>
#include "top/top.h"

static struct proc_ent ents[3];
static struct top_row rows[3], *rowp[3];

static struct top_frame frame(void)
{
	struct top_frame f = { .secs = 2, .all = rows, .nall = 3, .rows = rowp };

	return f;
}

/* Three processes over a frame of 2 s: ents[i].cur - ents[i].prev. */
static int setup(void **state)
{
	static const char *const comm[] = { "fio", "postgres", "kworker/0:1" };

	(void)state;
	memset(ents, 0, sizeof(ents));
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 3; i++) {
		ents[i].id = ents[i].tgid = 100 + i;
		ents[i].uid = i;
		ents[i].flags = IOLENS_TASK_SYS;
		strcpy(ents[i].comm, comm[i]);
		rows[i].e = &ents[i];
		rows[i].user = i ? "postgres" : "root";
	}
	/* fio: 8 MiB read from disk of 16 MiB read through syscalls. */
	ents[0].cur.io.read_bytes = 8 << 20;
	ents[0].cur.sys.bytes[IOLENS_SC_FILE_READ] = 16 << 20;
	ents[0].cur.io.syscr = 5;
	ents[0].cur.blk_ios = 4;
	ents[0].cur.blk_ns = 4000000;
	ents[0].cur.blk_timed = 4;
	ents[0].cur.delay.blkio_ns = 500000000;
	ents[0].flags |= IOLENS_TASK_BLKIO;
	ents[1].flags |= IOLENS_TASK_BLKIO | IOLENS_TASK_SWAPIN;
	/* postgres: more written, nothing read; 3 MiB since top's start. */
	ents[1].prev.io.write_bytes = 1 << 20;
	ents[1].cur.io.write_bytes = 3 << 20;
	ents[1].prev.sys.calls[IOLENS_SC_SYNC] = 1;
	ents[1].cur.sys.calls[IOLENS_SC_SYNC] = 7;
	/* the kworker: nothing this frame, syscalls not counted. */
	ents[2].flags = IOLENS_TASK_KTHREAD;
	return 0;
}

static const char *cell(const struct top_row *r, const char *title, bool acc)
{
	static char buf[64];
	struct top_cellfmt cf = { .secs = 2, .accumulated = acc };
	int c = top_col_find(title);

	assert_true(c >= 0);
	top_cell(buf, sizeof(buf), r, c, &cf);
	return buf;
}

/* Every row of the table says what it shows and where its value is. */
static void test_table_is_whole(void **state)
{
	(void)state;
	assert_true(top_ncols >= 10);
	for (int c = 0; c < top_ncols; c++) {
		const struct top_column *t = &top_cols[c];

		assert_non_null(t->title);
		assert_true(t->width >= (int)strlen(t->title));
		assert_non_null(t->help);
		assert_int_equal(top_col_find(t->title), c);
		assert_int_equal(top_col_by_key(t->key), c);
		/* Only COMMAND is always shown; the others rank apart. */
		assert_true((t->prio == 0) == (c == top_col_command));
		for (int d = 0; d < c; d++)
			assert_true(top_cols[d].prio != t->prio);
		/* One source of the value, fitting its format. */
		assert_int_equal(!!t->field + !!t->value + !!t->text, 1);
		assert_int_equal(t->fmt == TOP_TEXT, t->text != NULL);
	}
	assert_string_equal(top_cols[top_col_command].title, "COMMAND");
	assert_int_equal(top_col_find("NO SUCH"), -1);
}

static void test_cells(void **state)
{
	struct top_frame f = frame();
	struct top_opts o = { .sort = top_col_find("DISK READ") };

	(void)state;
	top_arrange(&f, &o);
	assert_string_equal(cell(&rows[0], "PID", false), "100");
	assert_string_equal(cell(&rows[0], "USER", false), "root");
	assert_string_equal(cell(&rows[0], "DISK READ", false), "4.0M/s");
	assert_string_equal(cell(&rows[0], "FILE READ", false), "8.0M/s");
	/* 1 - 8 MiB from disk / 16 MiB read. */
	assert_string_equal(cell(&rows[0], "HIT%", false), "50%");
	assert_string_equal(cell(&rows[0], "SYSCR", false), "2.5");
	assert_string_equal(cell(&rows[0], "BLK LAT", false), "1.00ms");
	assert_string_equal(cell(&rows[0], "COMMAND", false), "fio");
	/* Too few bytes read for a ratio; no request for a latency. */
	assert_string_equal(cell(&rows[1], "HIT%", false), "-");
	assert_string_equal(cell(&rows[1], "BLK LAT", false), "-");
	assert_string_equal(cell(&rows[1], "FSYNC", false), "3.0");
	/* 0.5 s of 2 waited for block I/O; swap-in not known. */
	assert_string_equal(cell(&rows[0], "IO>", false), "25.0%");
	assert_string_equal(cell(&rows[0], "SWAPIN", false), "-");
	assert_string_equal(cell(&rows[1], "IO>", false), "0.0%");
	/* Syscall columns of a task nobody counted syscalls for. */
	assert_string_equal(cell(&rows[2], "FILE READ", false), "-");
	assert_string_equal(cell(&rows[2], "FSYNC", false), "-");
	assert_string_equal(cell(&rows[2], "DISK READ", false), "0.0B/s");
}

static void test_accumulated(void **state)
{
	struct top_frame f = frame();
	struct top_opts o = { .sort = 0, .accumulated = true };

	(void)state;
	top_arrange(&f, &o);
	/* Since top's start (cur), not a rate. */
	assert_string_equal(cell(&rows[1], "DISK WRITE", true), "3.0M");
	assert_string_equal(cell(&rows[1], "FSYNC", true), "7");
}

/* What the user names in --columns and toprc. */
static void test_cols_parse(void **state)
{
	int cols[TOP_MAX_COLS], n;
	char bad[64], list[256];

	(void)state;
	n = top_cols_parse("io,pid", cols, bad, sizeof(bad));
	assert_int_equal(n, 3);
	assert_int_equal(cols[0], top_col_by_key("io"));
	assert_int_equal(cols[1], top_col_by_key("pid"));
	assert_int_equal(cols[2], top_col_command);
	/* COMMAND stays last wherever it is named. */
	n = top_cols_parse("command,user", cols, bad, sizeof(bad));
	assert_int_equal(n, 2);
	assert_int_equal(cols[1], top_col_command);
	top_cols_format(list, sizeof(list), cols, n);
	assert_string_equal(list, "user,command");
	assert_int_equal(top_cols_parse("pid,nope", cols, bad, sizeof(bad)), -1);
	assert_string_equal(bad, "nope");
	assert_int_equal(top_cols_parse("pid,pid", cols, bad, sizeof(bad)), -1);
	assert_int_equal(top_cols_parse("pid,", cols, bad, sizeof(bad)), 2);
	n = top_cols_default(cols);
	assert_int_equal(cols[n - 1], top_col_command);
}

static int layout_has(const struct top_layout *l, const char *key)
{
	for (int i = 0; i < l->n; i++)
		if (l->col[i] == top_col_by_key(key))
			return 1;
	return 0;
}

/* At 80 columns the default set keeps PID, USER, DISK READ, DISK WRITE,
 * HIT%, IO> and COMMAND; wider, more in their order; scrolled, the hidden
 * ones come in at the right. */
static void test_layout(void **state)
{
	static const char *const at80[] = { "pid", "user", "disk_read", "disk_write",
					    "hit", "io", "command" };
	struct top_layout l;
	int cols[TOP_MAX_COLS], n = top_cols_default(cols), used = 0;

	(void)state;
	top_layout(&l, cols, n, 80, 0);
	assert_int_equal(l.n, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(l.col[i], top_col_by_key(at80[i]));
	for (int i = 0; i < l.n; i++)
		used += l.width[i] + (i < l.n - 1);
	assert_int_equal(used, 80);	/* COMMAND takes the rest */
	assert_int_equal(l.hidden_left, 0);
	assert_int_equal(l.hidden_right, n - 7);
	top_layout(&l, cols, n, 80, 1);
	assert_false(layout_has(&l, "pid"));
	assert_true(layout_has(&l, "file_read"));
	assert_int_equal(l.hidden_left, 1);
	top_layout(&l, cols, n, 300, 0);
	assert_int_equal(l.n, n);
	assert_int_equal(l.hidden_right, 0);
	/* Narrower than COMMAND alone: COMMAND, the whole width. */
	top_layout(&l, cols, n, 12, 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.width[0], 12);
}

static void test_graph(void **state)
{
	struct graph g = {};
	char buf[3 * GRAPH_SECS + 1];

	(void)state;
	graph_draw(buf, sizeof(buf), NULL, 10, 6, false);
	assert_string_equal(buf, "      ");
	/* 600 bytes over seconds 50-59, drawn at 60: the last sixth. */
	graph_add(&g, 50, 60, 600);
	assert_true(g.v[55] == 60);
	graph_draw(buf, sizeof(buf), &g, 59.5, 6, false);
	assert_string_equal(buf, "     @");
	/* Half as much before: the lower marks. */
	graph_add(&g, 60, 70, 300);
	graph_draw(buf, sizeof(buf), &g, 69.5, 6, false);
	assert_string_equal(buf, "    @+");
	graph_draw(buf, sizeof(buf), &g, 69.5, 6, true);
	assert_string_equal(buf, "    \u2588\u2585");
	/* A minute on, none of it is left. */
	graph_add(&g, 200, 201, 1);
	assert_true(g.v[55] == 0);
	graph_draw(buf, sizeof(buf), &g, 300, 6, false);
	assert_string_equal(buf, "      ");
}

/* Children under their parent, siblings in the sort order; a parent not
 * shown makes a root. */
static void test_tree(void **state)
{
	struct top_frame f = frame();
	struct top_opts o = { .sort = top_col_by_key("pid"), .tree_view = true };

	(void)state;
	ents[0].ppid = 102;		/* fio under the kworker */
	ents[1].ppid = 1;		/* postgres: parent not shown */
	ents[2].ppid = 101;		/* the kworker under postgres */
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 3);
	assert_int_equal(f.rows[0]->e->id, 101);
	assert_int_equal(f.rows[1]->e->id, 102);
	assert_int_equal(f.rows[2]->e->id, 100);
	assert_int_equal(f.rows[2]->depth, 2);
	assert_string_equal(cell(f.rows[2], "COMMAND", false), "   `- fio");
	/* A cycle: every row still shown once. */
	ents[1].ppid = 100;
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 3);
	assert_true(f.rows[0] != f.rows[1] && f.rows[1] != f.rows[2] &&
		    f.rows[0] != f.rows[2]);
}

static void test_sort_and_filter(void **state)
{
	struct top_frame f = frame();
	struct top_opts o = { .sort = top_col_find("DISK READ") };

	(void)state;
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 3);
	/* Biggest first, ties by id. */
	assert_int_equal(f.rows[0]->e->id, 100);
	assert_int_equal(f.rows[1]->e->id, 101);
	assert_int_equal(f.rows[2]->e->id, 102);
	assert_int_equal(f.total.io.read_bytes, 8 << 20);
	assert_int_equal(f.total.io.write_bytes, 2 << 20);

	o.sort = top_col_find("DISK WRITE");
	top_arrange(&f, &o);
	assert_int_equal(f.rows[0]->e->id, 101);
	o.reverse = true;
	top_arrange(&f, &o);
	assert_int_equal(f.rows[0]->e->id, 102);

	/* PID sorts smallest first, text columns by name. */
	o = (struct top_opts){ .sort = top_col_find("PID") };
	top_arrange(&f, &o);
	assert_int_equal(f.rows[0]->e->id, 100);
	o.sort = top_col_find("COMMAND");
	top_arrange(&f, &o);
	assert_string_equal(f.rows[0]->e->comm, "fio");
	assert_string_equal(f.rows[2]->e->comm, "postgres");

	o.only_active = true;
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 2);
	o = (struct top_opts){ .comm = "post" };
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 1);
	assert_int_equal(f.rows[0]->e->id, 101);
	assert_int_equal(f.total.io.read_bytes, 0);
	o = (struct top_opts){ .pids = { 102 }, .npids = 1 };
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 1);
	assert_int_equal(f.rows[0]->e->id, 102);
	/* The interactive filter: a pid, part of a name, or a user. */
	o = (struct top_opts){ .filter = "postgres" };
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 2);
	o.filter = "100";
	top_arrange(&f, &o);
	assert_int_equal(f.nrows, 1);
}

static void test_hit_ratio(void **state)
{
	struct proc_io d = {};

	(void)state;
	d.sys.bytes[IOLENS_SC_FILE_READ] = TOP_HIT_MIN_BYTES;
	assert_true(isnan(top_hit_ratio(&d, false)));
	assert_true(top_hit_ratio(&d, true) == 1.0);
	/* Readahead read more than was asked for: no hit, never negative. */
	d.io.read_bytes = 2 * TOP_HIT_MIN_BYTES;
	assert_true(top_hit_ratio(&d, true) == 0.0);
	d.sys.bytes[IOLENS_SC_FILE_READ] = TOP_HIT_MIN_BYTES - 1;
	assert_true(isnan(top_hit_ratio(&d, true)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_whole),
		cmocka_unit_test_setup(test_cells, setup),
		cmocka_unit_test_setup(test_accumulated, setup),
		cmocka_unit_test(test_cols_parse),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_graph),
		cmocka_unit_test_setup(test_tree, setup),
		cmocka_unit_test_setup(test_sort_and_filter, setup),
		cmocka_unit_test(test_hit_ratio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
