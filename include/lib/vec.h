/* SPDX-License-Identifier: GPL-2.0 */
/* Growing arrays of small tables (processes, disks, files seen). */
#ifndef IOLENS_VEC_H
#define IOLENS_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Appends a zeroed element to the array at *(void **)pv of *n elements of
 * `size` bytes: returns it, or NULL (array untouched) without memory. */
static inline void *vec_add(void *pv, int *n, size_t size)
{
	void **v = pv;
	char *nv = realloc(*v, (*n + 1) * size);

	if (!nv)
		return NULL;
	*v = nv;
	memset(nv + *n * size, 0, size);
	return nv + (*n)++ * size;
}

/* Makes room for `need` elements of `size` bytes in the array at
 * *(void **)pv, whose room *cap doubles (from `first`) until they fit:
 * 0, or -1 (array untouched) without memory. */
static inline int vec_grow(void *pv, size_t *cap, size_t need, size_t size,
			   size_t first)
{
	void **v = pv;
	size_t n = *cap ? *cap : first;
	void *nv;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	nv = realloc(*v, n * size);
	if (!nv)
		return -1;
	*v = nv;
	*cap = n;
	return 0;
}

/* The first of the n elements of `size` bytes at v whose key, keylen bytes
 * at offset `off` in it (offsetof), equals *key; NULL if none.  The lookup
 * of the small tables before a vec_add() of what is not in them yet. */
static inline void *vec_find(const void *v, int n, size_t size, size_t off,
			     const void *key, size_t keylen)
{
	const char *e = v;

	for (int i = 0; i < n; i++, e += size)
		if (!memcmp(e + off, key, keylen))
			return (void *)e;
	return NULL;
}

/* The element whose key equals *key, as vec_find() looks it up in the array
 * at *(void **)pv; if there is none, one appended by vec_add() with that
 * key, and *added set, for the caller to fill in the rest.  NULL (array
 * untouched) without memory. */
static inline void *vec_get(void *pv, int *n, size_t size, size_t off,
			    const void *key, size_t keylen, bool *added)
{
	char *e = vec_find(*(void **)pv, *n, size, off, key, keylen);

	*added = !e;
	if (e)
		return e;
	e = vec_add(pv, n, size);
	if (e)
		memcpy(e + off, key, keylen);
	return e;
}

/* vec_find() in the n elements of array v by their `field`, which *key
 * has the type of. */
#define vec_find_by(v, n, field, key)					\
	vec_find(v, n, sizeof(*(v)), offsetof(__typeof__(*(v)), field), key,	\
		 sizeof((v)->field))

/* vec_get() of the array at pv (a pointer to the array's pointer) by its
 * elements' `field`, which *key has the type of. */
#define vec_get_by(pv, n, field, key, added)				\
	vec_get(pv, n, sizeof(**(pv)), offsetof(__typeof__(**(pv)), field), \
		key, sizeof((*(pv))->field), added)

/* qsort() of a table that may be empty, and then NULL: C leaves qsort(NULL,
 * 0, ...) undefined (glibc declares the base nonnull; UBSan stops on it). */
static inline void vec_sort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

#endif
