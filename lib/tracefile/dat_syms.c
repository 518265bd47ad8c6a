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
 * Names are cached per site list and table, so a report looks each
 * function up once however many processes ran it; the tables, site lists
 * and caches are shared by binary (dat_bins.c).  Names made up here (hex
 * addresses) are made once per address and freed at close.
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
	free(o->own_sites);
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

/* The object's own copy of its sites, nr_known grown to hold end. */
static int own_sites(struct dat_object *o, uint64_t end)
{
	uint64_t ncap = o->nr_known;
	uint64_t *p;

	if (o->own_sites && end <= o->nr_known)
		return 0;
	if (end > ncap)
		ncap = ncap * 2 < end ? end : ncap * 2;
	if (ncap > o->nr_sites)
		ncap = o->nr_sites;
	p = realloc(o->own_sites, (size_t)ncap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (o->sites && !o->own_sites) /* a shared list: copied */
		memcpy(p, o->sites, (size_t)o->nr_known * sizeof(*p));
	memset(p + o->nr_known, 0, (size_t)(ncap - o->nr_known) * sizeof(*p));
	o->own_sites = p;
	o->sites = p;
	o->nr_known = (uint32_t)ncap;
	return 0;
}

static int apply_sites(struct utrace_dat *d, const struct dat_blob *b)
{
	struct utrace_dat_sites hdr;
	struct dat_object *o;
	const char *data;
	uint32_t len;
	uint64_t end;

	data = dat_bin_payload(b->bin, &len);
	if (len < sizeof(hdr))
		goto bad;
	memcpy(&hdr, data, sizeof(hdr));
	if ((uint64_t)hdr.count * 8 > len - sizeof(hdr))
		goto bad;
	o = find_object(d, b->image, b->obj);
	if (!o) {
		dat_warn(d, "%s: SITES for image %u object %u, which no OBJECT record names",
			 d->path, b->image, b->obj);
		return 0;
	}
	end = (uint64_t)hdr.first + hdr.count;
	/* every site of an object is saved, 8 bytes each: an index beyond
	 * what the file could hold is damage, not a reason to allocate */
	if (end > o->nr_sites || end > d->file_size / 8)
		goto bad;
	if (!hdr.count)
		return 0;
	if (!o->sites && hdr.first == 0 && hdr.count == o->nr_sites) {
		/* the whole list at once: the one kept for its content */
		o->sites = (const uint64_t *)(const void *)(data + sizeof(hdr));
		o->nr_known = hdr.count;
		return 0;
	}
	if (own_sites(o, end) < 0)
		return -ENOMEM;
	memcpy(o->own_sites + hdr.first, data + sizeof(hdr), (size_t)hdr.count * 8);
	return 0;
bad:
	dat_warn(d, "%s: malformed SITES record skipped", d->path);
	return 0;
}

static int apply_symtab(struct utrace_dat *d, const struct dat_blob *b)
{
	struct utrace_dat_symtab hdr;
	struct dat_object *o;
	const char *data;
	uint32_t len;
	uint64_t need;

	data = dat_bin_payload(b->bin, &len);
	if (len < sizeof(hdr))
		goto bad;
	memcpy(&hdr, data, sizeof(hdr));
	need = sizeof(hdr) + (uint64_t)hdr.nr_syms * sizeof(struct utrace_dat_sym) + hdr.str_size;
	if (need > len)
		goto bad;
	o = find_object(d, b->image, b->obj);
	if (!o) {
		dat_warn(d, "%s: SYMTAB for image %u object %u, which no OBJECT record names",
			 d->path, b->image, b->obj);
		return 0;
	}
	o->tab = dat_bin_symtab(b->bin);
	o->names = NULL;
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
	for (size_t i = 0; i < d->nr_objects; i++)
		object_free(&d->objects[i]);
	free(d->objects);
	for (size_t i = 0; i < d->nr_images; i++) {
		free(d->images[i].exe);
		free(d->images[i].objs);
	}
	free(d->images);
	dat_bins_free(d);
	d->objects = NULL;
	d->images = NULL;
	d->nr_objects = d->nr_images = 0;
}

/* ---- lookups ---- */

/* An object without a SYMTAB gets the symbols of its file (a libcall
 * part's: its imports, as the recorder names them), read once a path. */
static const struct dat_symtab *need_syms(struct utrace_dat *d, struct dat_object *o)
{
	bool loaded;

	if (o->tab)
		return o->tab;
	o->tab = dat_bin_disk(d, o->path, (o->flags & UTRACE_OBJ_LIBCALL) != 0, &loaded);
	if (loaded && !d->disk_syms++)
		dat_warn(d,
			 "%s: symbol tables missing (recording did not finish?): names read "
			 "from the programs and libraries as they are now",
			 d->path);
	return o->tab;
}

/* The symbol that holds vaddr v, or NULL. */
static const struct utrace_dat_sym *sym_find(const struct dat_symtab *o, uint64_t v)
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
static const struct utrace_dat_sym *site_sym(const struct dat_symtab *o, uint64_t v)
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

/* The name of site idx of o (id its function id), or NULL out of memory. */
static const char *site_name(struct utrace_dat *d, struct dat_object *o, uint32_t idx,
			     uint32_t id)
{
	const struct dat_symtab *tab = need_syms(d, o);
	const struct utrace_dat_sym *s;

	if (!o->names && !(o->names = dat_bin_names(d, o->sites, tab, o->nr_known)))
		return NULL;
	if (!o->names[idx]) {
		/* a name of the table, or "": made below, per process */
		s = o->sites[idx] ? site_sym(tab, o->sites[idx]) : NULL;
		o->names[idx] = s && tab->strs[s->name] ? tab->strs + s->name : "";
	}
	if (o->names[idx][0])
		return o->names[idx];
	if (!o->sites[idx])
		return dat_bin_made_name(d, DAT_MADE_ID, id);
	return dat_bin_made_name(d, DAT_MADE_ADDR, o->bias + o->sites[idx]);
}

const char *utrace_dat_func_name(struct utrace_dat *d, uint32_t image, uint32_t id)
{
	struct dat_image *img = dat_find_image(d, image);
	struct dat_object *o = img ? object_of_id(img, id) : NULL;
	const char *name;
	uint32_t idx;

	if (!o)
		return ring_name(d, id);
	idx = id - o->id_base;
	if (idx >= o->nr_known)
		return ring_name(d, id);
	name = site_name(d, o, idx, id);
	return name ? name : ring_name(d, id);
}

const char *utrace_dat_addr_name(struct utrace_dat *d, uint32_t image, uint64_t addr,
				 uint64_t *offset)
{
	return utrace_dat_addr_sym(d, image, addr, offset, NULL);
}

const char *utrace_dat_addr_sym(struct utrace_dat *d, uint32_t image, uint64_t addr,
				uint64_t *offset, uint64_t *size)
{
	struct dat_image *img = dat_find_image(d, image);

	if (!img)
		return NULL;
	for (size_t i = 0; i < img->nr_objs; i++) {
		struct dat_object *o = img->objs[i];
		const struct dat_symtab *tab = need_syms(d, o);
		const struct utrace_dat_sym *s;
		uint64_t v = addr - o->bias;

		if (!tab->nr_syms || v < tab->sym_lo || v >= tab->sym_hi)
			continue;
		s = sym_find(tab, v);
		if (!s || !tab->strs[s->name])
			continue;
		if (offset)
			*offset = v - s->vaddr;
		if (size)
			*size = s->size;
		return tab->strs + s->name;
	}
	return NULL;
}

int utrace_dat_addr_object(struct utrace_dat *d, uint32_t image, uint64_t addr, const char **path,
			   uint64_t *vaddr)
{
	struct dat_image *img = dat_find_image(d, image);

	for (size_t i = 0; img && i < img->nr_objs; i++) {
		struct dat_object *o = img->objs[i];
		const struct dat_symtab *tab = need_syms(d, o);
		uint64_t v = addr - o->bias;

		if (!tab->nr_syms || v < tab->sym_lo || v >= tab->sym_hi || !o->path)
			continue;
		*path = o->path;
		*vaddr = v;
		return 0;
	}
	return -ENOENT;
}
