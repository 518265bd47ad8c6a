/* SPDX-License-Identifier: MIT */
/*
 * export_svg.c - an interactive SVG flame graph (lib/export/export_svg.h).
 *
 * Design: two walks over the call graph.  The first finds the total time
 * (the sum of the roots') and the depth; the second writes one <g> per
 * frame wide enough to see, laid out as flamegraph.pl lays it out:
 *
 *   x(node)     = x(caller) + the totals of the callees before it
 *   width(node) = total(node) / total(roots) * width of the graph
 *   y(node)     = its depth, counted up from the bottom (flame) or down
 *                 from the top (icicle)
 *
 * next_x[depth] is where the next frame at that depth starts: a node
 * takes it, moves it on by its width, and its callees start where it
 * starts.  Each frame carries its position as fractions of the whole
 * (data-x, data-w) and its depth, which is all the script needs to zoom
 * (scale the frames inside the clicked one, fade its callers, hide the
 * rest) and to search.  Times in the tooltips are microseconds.
 *
 * A differential graph (o->diff) colours a frame by the change of its
 * self time from the base, as flamegraph.pl colours difffolded.pl's
 * output: red for growth, blue for shrinking, the deeper the larger the
 * change against the largest change of any path (the first walk finds
 * it), white for none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/export/export_diff.h"
#include "lib/export/export_flame.h"
#include "lib/export/export_svg.h"

#define FRAME_H 16
#define PAD_TOP 50
#define PAD_BOTTOM 40
#define PAD_SIDE 10
#define MIN_PX 0.1
/* the advance of a 12px monospace character: 0.6 em, 7.22 px in DejaVu
 * Sans Mono and Liberation Mono (6.6 let a name of ten characters run 6
 * px past its share, over the frame's right edge) */
#define CHAR_PX 7.3

struct svg {
	FILE *out;
	const struct utrace_svg_opts *o;
	double width; /* of the graph, in pixels */
	uint64_t total;
	unsigned depth; /* the deepest frame + 1 */
	uint64_t *next_x;
	size_t cap;
	int oom;
	uint64_t max_delta; /* --diff: the largest change of a self time */
	const char *path[UTRACE_FLAME_MAX_DEPTH];
	const char *counts; /* what a node's calls are: "calls", or "samples" */
};

/* --diff: n's self time minus the base's for its path (set in s->path). */
static int64_t self_delta(struct svg *s, const struct utrace_callgraph_node *n,
			  struct utrace_flame_base *base)
{
	s->path[n->depth] = n->name;
	*base = utrace_flame_diff_find(s->o->diff, s->path, n->depth + 1);
	return (int64_t)(n->self - base->self);
}

/* Writes s with the five XML entities escaped. */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
		}
	}
}

static int size_node(void *arg, const struct utrace_callgraph_node *n)
{
	struct svg *s = arg;

	if (n->depth >= UTRACE_FLAME_MAX_DEPTH)
		return 1;
	if (n->depth == 0)
		s->total += n->total;
	if (n->depth + 1 > s->depth)
		s->depth = n->depth + 1;
	if (s->o->diff) {
		struct utrace_flame_base base;
		int64_t d = self_delta(s, n, &base);
		uint64_t m = d < 0 ? (uint64_t)-d : (uint64_t)d;

		if (m > s->max_delta)
			s->max_delta = m;
	}
	return 0;
}

/* flamegraph.pl's color_scale: red as d grew, blue as it shrank */
static void diff_colour(const struct svg *s, int64_t d, unsigned *r, unsigned *g, unsigned *b)
{
	double max = (double)s->max_delta;

	*r = *g = *b = 255;
	if (d > 0)
		*g = *b = (unsigned)(210 * (max - (double)d) / max);
	else if (d < 0)
		*r = *g = (unsigned)(210 * (max + (double)d) / max);
}

/* A warm colour from the name, so a function keeps its colour. */
static void colour(const char *name, unsigned *r, unsigned *g, unsigned *b)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	*r = 205 + (h & 0xff) * 50 / 255;
	*g = ((h >> 8) & 0xff) * 230 / 255;
	*b = ((h >> 16) & 0xff) * 55 / 255;
}

static int frame_node(void *arg, const struct utrace_callgraph_node *n)
{
	struct svg *s = arg;
	struct utrace_flame_base base = {0, 0, 0};
	int64_t delta = 0;
	uint64_t x0;
	double x, w, y;
	unsigned r, g, b;
	size_t chars;

	if (n->depth >= UTRACE_FLAME_MAX_DEPTH)
		return 1;
	if (UTRACE_GROW_ZERO(s->next_x, s->cap, (size_t)n->depth + 2) < 0)
		return -ENOMEM;
	x0 = s->next_x[n->depth];
	s->next_x[n->depth] += n->total;
	s->next_x[n->depth + 1] = x0;
	w = (double)n->total / (double)s->total * s->width;
	if (w < MIN_PX)
		return 1; /* too narrow to see, and so are its callees */
	x = PAD_SIDE + (double)x0 / (double)s->total * s->width;
	y = s->o->icicle ? PAD_TOP + n->depth * FRAME_H
			 : PAD_TOP + (s->depth - 1 - n->depth) * FRAME_H;
	if (s->o->diff) {
		delta = self_delta(s, n, &base);
		diff_colour(s, delta, &r, &g, &b);
	} else {
		colour(n->name, &r, &g, &b);
	}
	fprintf(s->out, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\"><title>",
		(double)x0 / (double)s->total, (double)n->total / (double)s->total, n->depth);
	xml_text(s->out, n->name);
	fprintf(s->out, " (%" PRIu64 " %s, %.3f us, %.2f%%, self %.3f us", n->calls, s->counts,
		n->total / 1000.0, 100.0 * (double)n->total / (double)s->total, n->self / 1000.0);
	if (s->o->diff)
		fprintf(s->out,
			"; base: %" PRIu64 " %s, %.3f us, self %.3f us; self %+.3f us, %+.2f%%",
			base.calls, s->counts, base.total / 1000.0, base.self / 1000.0,
			delta / 1000.0, 100.0 * (double)delta / (double)s->total);
	fprintf(s->out,
		")</title>"
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\"/>"
		"<text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FRAME_H - 1, r, g, b, x + 3, y + FRAME_H - 4);
	chars = w < 6 + 3 * CHAR_PX ? 0 : (size_t)((w - 6) / CHAR_PX);
	if (chars && strlen(n->name) > chars) {
		char *cut = strndup(n->name, chars > 2 ? chars - 2 : 0);

		if (cut) {
			xml_text(s->out, cut);
			fputs("..", s->out);
		}
		free(cut);
	} else if (chars) {
		xml_text(s->out, n->name);
	}
	fputs("</text></g>\n", s->out);
	return 0;
}

/* The script: zoom, search, details.  Frames know their place as
 * fractions of the whole graph (data-x, data-w) and their depth. */
static const char script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "'use strict';\n"
    "var svg = document.documentElement, W, PAD, CHAR, frames, details, matched, zoomed = null;\n"
    "function init() {\n"
    "  W = +svg.getAttribute('data-graph-width'); PAD = +svg.getAttribute('data-pad');\n"
    "  CHAR = +svg.getAttribute('data-char'); details = document.getElementById('details');\n"
    "  matched = document.getElementById('matched');\n"
    "  frames = Array.prototype.map.call(document.querySelectorAll('g.f'), function (g) {\n"
    "    var t = g.querySelector('title').textContent;\n"
    "    return { g: g, x: +g.dataset.x, w: +g.dataset.w, d: +g.dataset.d, info: t,\n"
    "             name: t.replace(/ \\(\\d+ (calls|samples), .*$/, ''), rect: "
    "g.querySelector('rect'),\n"
    "             text: g.querySelector('text'), fill: "
    "g.querySelector('rect').getAttribute('fill') };\n"
    "  });\n"
    "  frames.forEach(function (f) {\n"
    "    f.g.addEventListener('click', function () { zoom(f); });\n"
    "    f.g.addEventListener('mouseover', function () { details.textContent = f.info; });\n"
    "    f.g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "  });\n"
    "  document.getElementById('unzoom').addEventListener('click', function () { zoom(null); });\n"
    "  document.getElementById('search').addEventListener('click', function () { search(); });\n"
    "  window.addEventListener('keydown', function (e) {\n"
    "    if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); search(); }\n"
    "  });\n"
    "  /* a view to share: #zoom=N (the Nth frame), #search=REGEX */\n"
    "  decodeURIComponent(location.hash.slice(1)).split('&').forEach(function (kv) {\n"
    "    var k = kv.split('=')[0], v = kv.slice(k.length + 1);\n"
    "    if (k === 'zoom' && frames[+v]) zoom(frames[+v]);\n"
    "    if (k === 'search') search(v);\n"
    "  });\n"
    "  svg.setAttribute('data-ready', '1');\n"
    "}\n"
    "function fit(f, w) {\n"
    "  var n = Math.floor((w - 6) / CHAR);\n"
    "  f.text.textContent = w < 3 * CHAR ? '' : f.name.length > n ? f.name.slice(0, n - 2) + '..' "
    ": f.name;\n"
    "}\n"
    "function place(f, x, w) {\n"
    "  f.rect.setAttribute('x', PAD + x * W); f.rect.setAttribute('width', w * W);\n"
    "  f.text.setAttribute('x', PAD + x * W + 3); fit(f, w * W);\n"
    "}\n"
    "function zoom(z) {\n"
    "  zoomed = z;\n"
    "  document.getElementById('unzoom').style.opacity = z ? 1 : 0;\n"
    "  frames.forEach(function (f) {\n"
    "    var inside = !z || (f.d >= z.d && f.x >= z.x - 1e-12 && f.x + f.w <= z.x + z.w + 1e-12);\n"
    "    var above = z && f.d < z.d && f.x <= z.x + 1e-12 && f.x + f.w >= z.x + z.w - 1e-12;\n"
    "    f.g.style.display = inside || above ? '' : 'none';\n"
    "    f.g.classList.toggle('parent', !!above);\n"
    "    if (above) place(f, 0, 1);\n"
    "    else if (inside) place(f, z ? (f.x - z.x) / z.w : f.x, z ? f.w / z.w : f.w);\n"
    "  });\n"
    "}\n"
    "function search(term) {\n"
    "  if (term === undefined) term = prompt('Search for (a regular expression):', '');\n"
    "  if (term === null) return;\n"
    "  var re, spans = [], total = 0, end = -1;\n"
    "  try { re = new RegExp(term); } catch (e) { matched.textContent = 'bad expression'; return; "
    "}\n"
    "  frames.forEach(function (f) {\n"
    "    var hit = term !== '' && re.test(f.name);\n"
    "    f.rect.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "    if (hit) spans.push([f.x, f.x + f.w]);\n"
    "  });\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  spans.forEach(function (s) {\n"
    "    if (s[0] >= end) { total += s[1] - s[0]; end = s[1]; }\n"
    "    else if (s[1] > end) { total += s[1] - end; end = s[1]; }\n"
    "  });\n"
    "  matched.textContent = term === '' ? '' : 'Matched: ' + (100 * total).toFixed(1) + '%';\n"
    "}\n"
    "init();\n"
    "]]></script>\n";

static void header(struct svg *s, double total_w, double total_h)
{
	const char *title = s->o->title	   ? s->o->title
			    : s->o->diff   ? "Differential Flame Graph"
			    : s->o->icicle ? "Icicle Graph"
					   : "Flame Graph";

	fprintf(
	    s->out,
	    "<?xml version=\"1.0\" standalone=\"no\"?>\n"
	    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	    "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-graph-width=\"%.0f\" "
	    "data-pad=\"%d\" data-char=\"%.1f\">\n"
	    "<style>text { font: 12px monospace; fill: #000; pointer-events: none; }\n"
	    "g.f rect { stroke: #fff; stroke-width: 0.5; cursor: pointer; }\n"
	    "g.f:hover rect { stroke: #000; stroke-width: 1; }\n"
	    "g.parent rect { opacity: 0.5; }\n"
	    ".ui { font: 12px monospace; cursor: pointer; fill: #000; pointer-events: all; }\n"
	    "#title { font: 17px sans-serif; text-anchor: middle; pointer-events: none; }</style>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
	    "<text id=\"title\" x=\"%.0f\" y=\"24\">",
	    total_w, total_h, total_w, total_h, s->width, PAD_SIDE, CHAR_PX, total_w / 2);
	xml_text(s->out, title);
	fprintf(
	    s->out,
	    "</text>\n"
	    "<text id=\"unzoom\" class=\"ui\" x=\"%d\" y=\"24\" style=\"opacity:0\">Reset "
	    "zoom</text>\n"
	    "<text id=\"search\" class=\"ui\" x=\"%.0f\" y=\"24\" "
	    "text-anchor=\"end\">Search</text>\n"
	    "<text id=\"matched\" class=\"ui\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"></text>\n"
	    "<text id=\"details\" class=\"ui\" x=\"%d\" y=\"%.0f\"> </text>\n",
	    PAD_SIDE, total_w - PAD_SIDE, total_w - PAD_SIDE, total_h - 14, PAD_SIDE, total_h - 14);
}

int utrace_export_svg(const struct utrace_callgraph *g, const struct utrace_svg_opts *o, FILE *out,
		      struct utrace_error *err)
{
	struct svg s = {.out = out,
			.o = o,
			.width = o->width ? o->width : 1200,
			.counts = utrace_callgraph_sampled(g) ? "samples" : "calls"};
	int ret;

	utrace_callgraph_walk(g, size_node, &s);
	if (o->diff)
		s.max_delta = utrace_flame_diff_max(o->diff, s.max_delta);
	header(&s, s.width + 2 * PAD_SIDE, PAD_TOP + (double)s.depth * FRAME_H + PAD_BOTTOM);
	ret = s.total ? utrace_callgraph_walk(g, frame_node, &s) : 0;
	free(s.next_x);
	if (ret < 0)
		return utrace_error_set(err, ret, "out of memory writing the flame graph");
	fputs(script, out);
	fputs("</svg>\n", out);
	if (ferror(out))
		return utrace_error_set(err, -EIO, "writing the flame graph failed");
	return 0;
}
