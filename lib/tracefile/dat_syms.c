/* SPDX-License-Identifier: MIT */
/*
 * dat_syms.c - function names of a utrace.dat file.
 *
 * A function id belongs to the OBJECT of its image whose range
 * [id_base, id_base + nr_sites) holds it; the object's SITES give the ELF
 * vaddr of the call site, and its SYMTAB (sorted by vaddr) the symbol that
 * holds that vaddr.  With -fpatchable-function-entry the site is the
 * function's first byte, or 4 bytes in after an endbr64; with -pg it is
 * somewhere after the prologue; with NOPs before the entry it lies just
 * before the function, which is why a site in no symbol takes the next
 * symbol if it starts within 16 bytes.  A symbol of size 0 covers up to
 * the next one.
 *
 * Names are cached per object and id, so a report looks each function up
 * once.  Names made up here (hex addresses) live in a list freed at close.
 *
 * SYMTAB records are written when the recording ends: a recorder that was
 * killed leaves none, and a recording still running (the live tracefs's
 * trace) has none yet.  An object without one then gets its symbols from
 * its file as it is on disk now (with a warning), the first time a name
 * in it is needed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "lib/tracefile/dat_internal.h"
#include "lib/elf/symtab.h"

#define SITE_BEFORE_FUNC_MAX 16

static int cmp_object(const void *a, const void *b)
{
	const struct dat_object *x = a, *y = b;

	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_image(const void *a, const void *b)
{
	const struct dat_image *x = a, *y = b;

	if (x->info.image != y->info.image)
		return x->info.image < y->info.image ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct utrace_dat_sym *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int cmp_obj_id(const void *a, const void *b)
{
	const struct dat_object *x = *(struct dat_object *const *)a;
	const struct dat_object *y = *(struct dat_object *const *)b;

	/* objects without sites share their id_base with the next object:
	 * put them first, so the last object at or below an id is the one */
	if (x->id_base != y->id_base)
		return x->id_base < y->id_base ? -1 : 1;
	return x->nr_sites < y->nr_sites ? -1 : x->nr_sites > y->nr_sites;
}

/* qsort() wants a valid base even with nothing to sort */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static void object_free(struct dat_object *o)
{
	free(o->path);
	free(o->sites);
	free(o->syms);
	free(o->strs);
	free(o->name_cache);
	memset(o, 0, sizeof(*o));
}

static struct dat_object *find_object(struct utrace_dat *d, uint32_t image, uint32_t obj)
{
	size_t lo = 0, hi = d->nr_objects;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct dat_object *o = &d->objects[mid];

		if (o->image == image && o->obj == obj)
			return o;
		if (o->image < image || (o->image == image && o->obj < obj))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

struct dat_image *dat_find_image(const struct utrace_dat *d, uint32_t image)
{
	size_t lo = 0, hi = d->nr_images;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->images[mid].info.image == image)
			return &d->images[mid];
		if (d->images[mid].info.image < image)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int apply_sites(struct utrace_dat *d, const struct dat_blob *b)
{
	struct utrace_dat_sites hdr;
	struct dat_object *o;
	uint64_t end;

	if (b->len < sizeof(hdr))
		goto bad;
	memcpy(&hdr, b->data, sizeof(hdr));
	if ((uint64_t)hdr.count * 8 > b->len - sizeof(hdr))
		goto bad;
	o = find_object(d, hdr.image, hdr.obj);
	if (!o) {
		dat_warn(d, "%s: SITES for image %u object %u, which no OBJECT record names",
			 d->path, hdr.image, hdr.obj);
		return 0;
	}
	end = (uint64_t)hdr.first + hdr.count;
	/* every site of an object is saved, 8 bytes each: an index beyond
	 * what the file could hold is damage, not a reason to allocate */
	if (end > o->nr_sites || end > d->file_size / 8)
		goto bad;
	if (!hdr.count)
		return 0;
	if (end > o->nr_known) {
		uint64_t ncap = (uint64_t)o->nr_known * 2;
		uint64_t *p;

		if (ncap < end)
			ncap = end;
		if (ncap > o->nr_sites)
			ncap = o->nr_sites;
		p = realloc(o->sites, (size_t)ncap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + o->nr_known, 0, (size_t)(ncap - o->nr_known) * sizeof(*p));
		o->sites = p;
		o->nr_known = (uint32_t)ncap;
	}
	memcpy(o->sites + hdr.first, b->data + sizeof(hdr), (size_t)hdr.count * 8);
	return 0;
bad:
	dat_warn(d, "%s: malformed SITES record skipped", d->path);
	return 0;
}

/* Checks names and order, and computes the covered range. */
static void finish_syms(struct dat_object *o)
{
	int sorted = 1;

	o->sym_lo = UINT64_MAX;
	o->sym_hi = 0;
	for (uint32_t i = 0; i < o->nr_syms; i++) {
		struct utrace_dat_sym *s = &o->syms[i];
		uint64_t end = s->vaddr + (s->size ? s->size : 1);

		if (s->name >= o->str_size)
			s->name = o->str_size; /* the final NUL: "" */
		if (i && s->vaddr < o->syms[i - 1].vaddr)
			sorted = 0;
		if (end < s->vaddr)
			end = UINT64_MAX;
		if (s->vaddr < o->sym_lo)
			o->sym_lo = s->vaddr;
		if (end > o->sym_hi)
			o->sym_hi = end;
	}
	if (!sorted)
		sort(o->syms, o->nr_syms, sizeof(*o->syms), cmp_sym);
	free(o->name_cache);
	o->name_cache = NULL;
}

static int apply_symtab(struct utrace_dat *d, const struct dat_blob *b)
{
	struct utrace_dat_symtab hdr;
	struct dat_object *o;
	uint64_t need;

	if (b->len < sizeof(hdr))
		goto bad;
	memcpy(&hdr, b->data, sizeof(hdr));
	need = sizeof(hdr) + (uint64_t)hdr.nr_syms * sizeof(struct utrace_dat_sym) + hdr.str_size;
	if (need > b->len)
		goto bad;
	o = find_object(d, hdr.image, hdr.obj);
	if (!o) {
		dat_warn(d, "%s: SYMTAB for image %u object %u, which no OBJECT record names",
			 d->path, hdr.image, hdr.obj);
		return 0;
	}
	free(o->syms);
	free(o->strs);
	o->syms = NULL;
	o->nr_syms = 0;
	o->strs = malloc((size_t)hdr.str_size + 1);
	if (!o->strs)
		return -ENOMEM;
	if (hdr.nr_syms) {
		o->syms = malloc((size_t)hdr.nr_syms * sizeof(*o->syms));
		if (!o->syms)
			return -ENOMEM;
		memcpy(o->syms, b->data + sizeof(hdr), (size_t)hdr.nr_syms * sizeof(*o->syms));
	}
	memcpy(o->strs, b->data + sizeof(hdr) + (size_t)hdr.nr_syms * sizeof(*o->syms),
	       hdr.str_size);
	o->strs[hdr.str_size] = '\0';
	o->str_size = hdr.str_size;
	o->nr_syms = hdr.nr_syms;
	finish_syms(o);
	o->has_symtab = 1;
	return 0;
bad:
	dat_warn(d, "%s: malformed SYMTAB record skipped", d->path);
	return 0;
}

/* Keeps the last of each run of equal keys in a sorted array. */
static size_t dedupe_objects(struct utrace_dat *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr_objects; i++) {
		struct dat_object *o = &d->objects[i];

		if (i + 1 < d->nr_objects && d->objects[i + 1].image == o->image &&
		    d->objects[i + 1].obj == o->obj) {
			object_free(o);
			continue;
		}
		if (n != i)
			d->objects[n] = *o;
		n++;
	}
	return n;
}

static int build_images(struct utrace_dat *d)
{
	size_t n = 0, missing = 0;
	struct dat_image *p;

	sort(d->images, d->nr_images, sizeof(*d->images), cmp_image);
	for (size_t i = 0; i < d->nr_images; i++) {
		if (i + 1 < d->nr_images &&
		    d->images[i + 1].info.image == d->images[i].info.image) {
			free(d->images[i].exe);
			continue;
		}
		d->images[n++] = d->images[i];
	}
	d->nr_images = n;

	/* objects of images no IMAGE record describes get an unnamed one */
	for (size_t i = 0; i < d->nr_objects; i++)
		if ((i == 0 || d->objects[i - 1].image != d->objects[i].image) &&
		    !dat_find_image(d, d->objects[i].image))
			missing++;
	if (missing) {
		p = realloc(d->images, (d->nr_images + missing) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		d->images = p;
		n = d->nr_images;
		for (size_t i = 0; i < d->nr_objects; i++) {
			uint32_t image = d->objects[i].image;

			if ((i > 0 && d->objects[i - 1].image == image) || dat_find_image(d, image))
				continue;
			memset(&p[n], 0, sizeof(p[n]));
			p[n].info.image = image;
			p[n].exe = strdup("");
			if (!p[n].exe)
				return -ENOMEM;
			p[n].info.exe = p[n].exe;
			n++;
		}
		d->nr_images = n;
		sort(d->images, d->nr_images, sizeof(*d->images), cmp_image);
	}
	for (size_t i = 0; i < d->nr_images; i++)
		d->images[i].info.exe = d->images[i].exe;

	for (size_t i = 0; i < d->nr_objects;) {
		size_t j = i;
		struct dat_image *img = dat_find_image(d, d->objects[i].image);

		while (j < d->nr_objects && d->objects[j].image == d->objects[i].image)
			j++;
		img->objs = malloc((j - i) * sizeof(*img->objs));
		if (!img->objs)
			return -ENOMEM;
		for (size_t k = i; k < j; k++)
			img->objs[img->nr_objs++] = &d->objects[k];
		sort(img->objs, img->nr_objs, sizeof(*img->objs), cmp_obj_id);
		i = j;
	}
	return 0;
}

int dat_syms_finish(struct utrace_dat *d, struct dat_blob *blobs, size_t nr_blobs)
{
	int ret;

	sort(d->objects, d->nr_objects, sizeof(*d->objects), cmp_object);
	d->nr_objects = dedupe_objects(d);
	for (size_t i = 0; i < nr_blobs; i++) {
		if (blobs[i].type == UTRACE_DAT_SITES)
			ret = apply_sites(d, &blobs[i]);
		else
			ret = apply_symtab(d, &blobs[i]);
		if (ret < 0)
			return ret;
	}
	return build_images(d);
}

void dat_syms_free(struct utrace_dat *d)
{
	struct dat_name *n, *next;

	for (size_t i = 0; i < d->nr_objects; i++)
		object_free(&d->objects[i]);
	free(d->objects);
	for (size_t i = 0; i < d->nr_images; i++) {
		free(d->images[i].exe);
		free(d->images[i].objs);
	}
	free(d->images);
	for (n = d->names; n; n = next) {
		next = n->next;
		free(n);
	}
	d->objects = NULL;
	d->images = NULL;
	d->names = NULL;
	d->nr_objects = d->nr_images = 0;
}

/* ---- lookups ---- */

/* Symbols from the object's file, for an object without a SYMTAB (a
 * libcall part's: its imports, as the recorder names them). */
static void load_disk_syms(struct utrace_dat *d, struct dat_object *o)
{
	struct utrace_symtab *tab;
	struct utrace_error err;
	size_t n, strsz = 0, pos = 0;

	o->has_symtab = 1; /* tried */
	if (!o->path[0] ||
	    ((o->flags & UTRACE_OBJ_LIBCALL) ? utrace_symtab_load_imports(o->path, &tab, &err)
					     : utrace_symtab_load(o->path, &tab, &err)) < 0)
		return;
	n = utrace_symtab_count(tab);
	for (size_t i = 0; i < n; i++)
		strsz += strlen(utrace_symtab_get(tab, i)->name) + 1;
	if (n > UINT32_MAX || strsz >= UINT32_MAX)
		goto out;
	o->syms = malloc((n ? n : 1) * sizeof(*o->syms));
	o->strs = malloc(strsz + 1);
	if (!o->syms || !o->strs) {
		free(o->syms);
		free(o->strs);
		o->syms = NULL;
		o->strs = NULL;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct utrace_sym *s = utrace_symtab_get(tab, i);
		size_t len = strlen(s->name) + 1;

		o->syms[i].vaddr = s->vaddr;
		o->syms[i].size = s->size > UINT32_MAX ? UINT32_MAX : (uint32_t)s->size;
		o->syms[i].name = (uint32_t)pos;
		memcpy(o->strs + pos, s->name, len);
		pos += len;
	}
	o->strs[strsz] = '\0';
	o->str_size = (uint32_t)strsz;
	o->nr_syms = (uint32_t)n;
	finish_syms(o);
	if (!d->disk_syms++)
		dat_warn(d,
			 "%s: symbol tables missing (recording did not finish?): names read "
			 "from the programs and libraries as they are now",
			 d->path);
out:
	utrace_symtab_free(tab);
}

static void need_syms(struct utrace_dat *d, struct dat_object *o)
{
	if (!o->has_symtab)
		load_disk_syms(d, o);
}

/* The symbol that holds vaddr v, or NULL. */
static const struct utrace_dat_sym *sym_find(const struct dat_object *o, uint64_t v)
{
	size_t lo = 0, hi = o->nr_syms, i, j;
	const struct utrace_dat_sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].vaddr <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	i = lo - 1;
	/* aliases at one address: the first one with a size */
	j = i;
	while (j > 0 && o->syms[j - 1].vaddr == o->syms[i].vaddr)
		j--;
	s = &o->syms[j];
	for (size_t k = j; k <= i; k++) {
		if (o->syms[k].size) {
			s = &o->syms[k];
			break;
		}
	}
	if (s->size && v - s->vaddr >= s->size)
		return NULL;
	return s;
}

/* The symbol of a call site at vaddr v, or NULL. */
static const struct utrace_dat_sym *site_sym(const struct dat_object *o, uint64_t v)
{
	const struct utrace_dat_sym *s = sym_find(o, v);
	size_t lo = 0, hi = o->nr_syms;

	if (s)
		return s;
	/* NOPs before the function entry: the next symbol, if close */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].vaddr <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->nr_syms && o->syms[lo].vaddr - v <= SITE_BEFORE_FUNC_MAX)
		return &o->syms[lo];
	return NULL;
}

static struct dat_object *object_of_id(const struct dat_image *img, uint32_t id)
{
	size_t lo = 0, hi = img->nr_objs;
	struct dat_object *o;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->objs[mid]->id_base <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges should not overlap; if they do, look a little further */
	for (size_t k = lo, n = 0; k-- > 0 && n < 16; n++) {
		o = img->objs[k];
		if (id - o->id_base < o->nr_sites)
			return o;
	}
	return NULL;
}

static const char *make_name(struct utrace_dat *d, const char *fmt, uint64_t v)
{
	char tmp[48];
	struct dat_name *n;
	int len = snprintf(tmp, sizeof(tmp), fmt, v);

	n = malloc(sizeof(*n) + (size_t)len + 1);
	if (!n)
		return NULL;
	memcpy(n->text, tmp, (size_t)len + 1);
	n->next = d->names;
	d->names = n;
	return n->text;
}

static const char *ring_name(struct utrace_dat *d, uint32_t id)
{
	char *s = d->ring[d->ring_pos++ % 8];

	snprintf(s, sizeof(d->ring[0]), "<id %u>", id);
	return s;
}

int utrace_dat_func_addr(struct utrace_dat *d, uint32_t image, uint32_t id, uint64_t *addr)
{
	struct dat_image *img = dat_find_image(d, image);
	struct dat_object *o = img ? object_of_id(img, id) : NULL;
	uint32_t idx;

	if (!o)
		return -ENOENT;
	idx = id - o->id_base;
	if (idx >= o->nr_known || !o->sites[idx])
		return -ENOENT;
	*addr = o->bias + o->sites[idx];
	return 0;
}

int utrace_dat_func_site(struct utrace_dat *d, uint32_t image, uint32_t id, const char **path,
			 uint64_t *vaddr)
{
	struct dat_image *img = dat_find_image(d, image);
	struct dat_object *o = img ? object_of_id(img, id) : NULL;
	uint32_t idx;

	if (!o || !o->path)
		return -ENOENT;
	idx = id - o->id_base;
	if (idx >= o->nr_known || !o->sites[idx])
		return -ENOENT;
	*path = o->path;
	*vaddr = o->sites[idx];
	return 0;
}

const char *utrace_dat_func_name(struct utrace_dat *d, uint32_t image, uint32_t id)
{
	struct dat_image *img = dat_find_image(d, image);
	struct dat_object *o = img ? object_of_id(img, id) : NULL;
	const struct utrace_dat_sym *s;
	const char *name;
	uint32_t idx;

	if (!o)
		return ring_name(d, id);
	idx = id - o->id_base;
	if (idx >= o->nr_known)
		return ring_name(d, id);
	need_syms(d, o);
	if (!o->name_cache) {
		o->name_cache = calloc(o->nr_known, sizeof(*o->name_cache));
		if (!o->name_cache)
			return ring_name(d, id);
	}
	if (o->name_cache[idx])
		return o->name_cache[idx];
	if (!o->sites[idx]) {
		name = make_name(d, "<id %" PRIu64 ">", id);
	} else {
		s = site_sym(o, o->sites[idx]);
		if (s && o->strs[s->name])
			name = o->strs + s->name;
		else
			name = make_name(d, "0x%" PRIx64, o->bias + o->sites[idx]);
	}
	if (!name)
		return ring_name(d, id);
	o->name_cache[idx] = name;
	return name;
}

const char *utrace_dat_addr_name(struct utrace_dat *d, uint32_t image, uint64_t addr,
				 uint64_t *offset)
{
	struct dat_image *img = dat_find_image(d, image);

	if (!img)
		return NULL;
	for (size_t i = 0; i < img->nr_objs; i++) {
		struct dat_object *o = img->objs[i];
		const struct utrace_dat_sym *s;
		uint64_t v = addr - o->bias;

		need_syms(d, o);
		if (!o->nr_syms || v < o->sym_lo || v >= o->sym_hi)
			continue;
		s = sym_find(o, v);
		if (!s || !o->strs[s->name])
			continue;
		if (offset)
			*offset = v - s->vaddr;
		return o->strs + s->name;
	}
	return NULL;
}
