/* SPDX-License-Identifier: MIT */
/*
 * callheavy.c - a "realistic" call-heavy benchmark workload.
 *
 *   callheavy [SCALE]       (default 1)
 *
 * Three phases, each built from many small functions at various call
 * depths, the way ordinary C code is (helpers in other translation units
 * are not inlined; FN marks them noinline here to get that in one file):
 *
 *   1. words:  generate a pseudo-random text (Zipf-like word choice),
 *              count the words in a chained hash table, with home-made
 *              string helpers (hash, compare, copy, length);
 *   2. sort:   merge sort the table entries by (count desc, word asc)
 *              through a comparison callback;
 *   3. interp: generate arithmetic expressions as text, tokenize them,
 *              parse them by recursive descent into a tree and evaluate
 *              the tree recursively.
 *
 * Everything is deterministic (fixed seed, no libc calls on the hot
 * path: memory comes from a bump allocator), and the program prints a
 * checksum so every build can be checked to compute the same thing.
 * SCALE multiplies the amount of work; SCALE 1 makes roughly 2 million
 * function calls (bench/run.sh measures the exact figure from a trace).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FN __attribute__((noinline))

/* ---- utilities --------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

FN uint64_t rng_next(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

FN unsigned rng_below(unsigned n)
{
	return (unsigned)(rng_next() % n);
}

FN uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static char *pool;
static size_t pool_used, pool_size;

FN void *pool_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (pool_used + n > pool_size) {
		fprintf(stderr, "callheavy: pool exhausted\n");
		exit(1);
	}
	p = pool + pool_used;
	pool_used += n;
	return p;
}

FN void pool_reset(void)
{
	pool_used = 0;
}

/* ---- strings ----------------------------------------------------------- */

FN size_t str_len(const char *s)
{
	size_t n = 0;

	/* The empty asm stops gcc from turning the loop into a call to
	 * strlen(): libc calls would be traced by uftrace but not by utrace,
	 * and both must see the same calls. */
	while (s[n]) {
		n++;
		__asm__("" : "+r"(n));
	}
	return n;
}

FN int str_cmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

FN int str_eq(const char *a, const char *b)
{
	return str_cmp(a, b) == 0;
}

FN char *str_dup(const char *s)
{
	size_t n = str_len(s);
	char *d = pool_alloc(n + 1);

	for (size_t i = 0; i <= n; i++)
		d[i] = s[i];
	return d;
}

FN uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* ---- phase 1: word counting --------------------------------------------- */

#define VOCAB 600
#define NBUCKETS 256

struct entry {
	const char *word;
	unsigned count;
	struct entry *next;
};

static struct entry *buckets[NBUCKETS];
static struct entry *entries[VOCAB];
static unsigned nentries;
static char vocab[VOCAB][12];

FN char rand_letter(void)
{
	static const char freq[] = "eeeeeeettttaaaaoooiiinnnsssrrhhlldcumfpgwybvkxjqz";

	return freq[rng_below(sizeof(freq) - 1)];
}

FN void make_word(char *buf, unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		buf[i] = rand_letter();
	buf[len] = 0;
}

FN void build_vocab(void)
{
	for (unsigned i = 0; i < VOCAB; i++)
		make_word(vocab[i], 2 + rng_below(9));
}

/* Zipf-like: small indices are much more frequent. */
FN const char *pick_word(void)
{
	unsigned r = rng_below(VOCAB);

	r = rng_below(r + 1);
	return vocab[r];
}

FN struct entry *table_lookup(const char *w, uint32_t h)
{
	for (struct entry *e = buckets[h % NBUCKETS]; e; e = e->next)
		if (str_eq(e->word, w))
			return e;
	return NULL;
}

FN struct entry *table_insert(const char *w, uint32_t h)
{
	struct entry *e = pool_alloc(sizeof(*e));

	e->word = str_dup(w);
	e->count = 0;
	e->next = buckets[h % NBUCKETS];
	buckets[h % NBUCKETS] = e;
	entries[nentries++] = e;
	return e;
}

FN void count_word(const char *w)
{
	uint32_t h = str_hash(w);
	struct entry *e = table_lookup(w, h);

	if (!e)
		e = table_insert(w, h);
	e->count++;
}

FN uint64_t phase_words(unsigned nwords)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < nwords; i++) {
		const char *w = pick_word();

		count_word(w);
		sum = mix(sum, str_len(w));
	}
	return sum;
}

/* ---- phase 2: sort ------------------------------------------------------ */

typedef int (*cmp_fn)(const void *, const void *);

FN int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return str_cmp(a->word, b->word);
}

FN void merge(void **v, void **tmp, unsigned lo, unsigned mid, unsigned hi, cmp_fn cmp)
{
	unsigned i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		tmp[k++] = cmp(v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < hi)
		tmp[k++] = v[j++];
	for (k = lo; k < hi; k++)
		v[k] = tmp[k];
}

FN void merge_sort(void **v, void **tmp, unsigned lo, unsigned hi, cmp_fn cmp)
{
	unsigned mid;

	if (hi - lo < 2)
		return;
	mid = lo + (hi - lo) / 2;
	merge_sort(v, tmp, lo, mid, cmp);
	merge_sort(v, tmp, mid, hi, cmp);
	merge(v, tmp, lo, mid, hi, cmp);
}

FN uint64_t phase_sort(unsigned rounds)
{
	static void *v[VOCAB], *tmp[VOCAB];
	uint64_t sum = 0;

	for (unsigned r = 0; r < rounds; r++) {
		/* Start each round from a different rotation of the table. */
		for (unsigned i = 0; i < nentries; i++)
			v[i] = entries[(i + r * 37) % nentries];
		merge_sort(v, tmp, 0, nentries, cmp_entry);
		for (unsigned i = 0; i < nentries && i < 10; i++)
			sum = mix(sum, ((struct entry *)v[i])->count);
		sum = mix(sum, str_hash(((struct entry *)v[0])->word));
	}
	return sum;
}

/* ---- phase 3: expression interpreter ------------------------------------ */

enum tok { T_END, T_NUM, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_LP, T_RP };

struct lexer {
	const char *p;
	enum tok tok;
	long val;
};

struct node {
	char op; /* 0 = number */
	long val;
	struct node *l, *r;
};

FN int is_space(char c)
{
	return c == ' ';
}

FN int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

FN long read_number(struct lexer *lx)
{
	long v = 0;

	while (is_digit(*lx->p))
		v = v * 10 + (*lx->p++ - '0');
	return v;
}

FN void next_token(struct lexer *lx)
{
	while (is_space(*lx->p))
		lx->p++;
	if (is_digit(*lx->p)) {
		lx->val = read_number(lx);
		lx->tok = T_NUM;
		return;
	}
	switch (*lx->p) {
	case 0:
		lx->tok = T_END;
		return;
	case '+':
		lx->tok = T_PLUS;
		break;
	case '-':
		lx->tok = T_MINUS;
		break;
	case '*':
		lx->tok = T_STAR;
		break;
	case '/':
		lx->tok = T_SLASH;
		break;
	case '(':
		lx->tok = T_LP;
		break;
	default:
		lx->tok = T_RP;
		break;
	}
	lx->p++;
}

FN struct node *new_node(char op, long val, struct node *l, struct node *r)
{
	struct node *n = pool_alloc(sizeof(*n));

	n->op = op;
	n->val = val;
	n->l = l;
	n->r = r;
	return n;
}

static struct node *parse_expr(struct lexer *lx);

FN struct node *parse_factor(struct lexer *lx)
{
	struct node *n;

	if (lx->tok == T_LP) {
		next_token(lx);
		n = parse_expr(lx);
		next_token(lx); /* ')' */
		return n;
	}
	n = new_node(0, lx->val, NULL, NULL);
	next_token(lx);
	return n;
}

FN struct node *parse_term(struct lexer *lx)
{
	struct node *n = parse_factor(lx);

	while (lx->tok == T_STAR || lx->tok == T_SLASH) {
		char op = lx->tok == T_STAR ? '*' : '/';

		next_token(lx);
		n = new_node(op, 0, n, parse_factor(lx));
	}
	return n;
}

FN struct node *parse_expr(struct lexer *lx)
{
	struct node *n = parse_term(lx);

	while (lx->tok == T_PLUS || lx->tok == T_MINUS) {
		char op = lx->tok == T_PLUS ? '+' : '-';

		next_token(lx);
		n = new_node(op, 0, n, parse_term(lx));
	}
	return n;
}

FN long apply_op(char op, long a, long b)
{
	switch (op) {
	case '+':
		return a + b;
	case '-':
		return a - b;
	case '*':
		return a * b;
	default:
		return b ? a / b : 0;
	}
}

FN long eval(const struct node *n)
{
	if (!n->op)
		return n->val;
	return apply_op(n->op, eval(n->l), eval(n->r));
}

FN char *emit_char(char *p, char c)
{
	*p = c;
	return p + 1;
}

FN char *emit_number(char *p, unsigned v)
{
	char tmp[12];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		p = emit_char(p, tmp[--n]);
	return p;
}

FN char *gen_expr(char *p, unsigned depth)
{
	static const char ops[] = "+-*/";

	if (depth == 0 || rng_below(4) == 0)
		return emit_number(p, rng_below(1000));
	p = emit_char(p, '(');
	p = gen_expr(p, depth - 1);
	p = emit_char(p, ' ');
	p = emit_char(p, ops[rng_below(4)]);
	p = emit_char(p, ' ');
	p = gen_expr(p, depth - 1);
	return emit_char(p, ')');
}

FN long run_program(const char *text)
{
	struct lexer lx = {text, T_END, 0};

	next_token(&lx);
	return eval(parse_expr(&lx));
}

FN uint64_t phase_interp(unsigned nexprs)
{
	static char text[1 << 16];
	uint64_t sum = 0;

	for (unsigned i = 0; i < nexprs; i++) {
		size_t mark = pool_used;
		char *end = gen_expr(text, 6);

		*end = 0;
		sum = mix(sum, (uint64_t)run_program(text));
		pool_used = mark; /* free the tree */
	}
	return sum;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1;
	uint64_t sum = 0;

	pool_size = 1u << 20;
	pool = malloc(pool_size);
	if (!pool)
		return 1;
	for (unsigned s = 0; s < scale; s++) {
		pool_reset();
		for (unsigned i = 0; i < NBUCKETS; i++)
			buckets[i] = NULL;
		nentries = 0;
		build_vocab();
		sum = mix(sum, phase_words(40000));
		sum = mix(sum, phase_sort(8));
		sum = mix(sum, phase_interp(2000));
	}
	printf("callheavy scale %u: %u words, checksum %016llx\n", scale, nentries,
	       (unsigned long long)sum);
	free(pool);
	return 0;
}
