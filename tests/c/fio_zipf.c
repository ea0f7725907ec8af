/* fio's zipf block sequence as this package states it, written here with fio's C types (unsigned int
 * taus88 state, unsigned long long rank, uint64_t hash), so the test can check the Python and Numba
 * versions against C's own integer and floating-point semantics. It is a port, not fio's code.
 * Usage: fio_zipf SEED NRANGES THETA COUNT [HASH_MULTIPLIER] -> one block per line; the multiplier
 * defaults to fio's GOLDEN_RATIO_64 (hash.h since fio 2.10). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct taus { unsigned int s1, s2, s3; };

static unsigned int draw(struct taus *t)
{
	t->s1 = ((t->s1 & 4294967294UL) << 12) ^ (((t->s1 << 13) ^ t->s1) >> 19);
	t->s2 = ((t->s2 & 4294967288UL) << 4) ^ (((t->s2 << 2) ^ t->s2) >> 25);
	t->s3 = ((t->s3 & 4294967280UL) << 17) ^ (((t->s3 << 3) ^ t->s3) >> 11);
	return t->s1 ^ t->s2 ^ t->s3;
}

static uint64_t at_least(uint64_t x, uint64_t m) { return x < m ? x + m : x; }

int main(int argc, char **argv)
{
	unsigned int seed = (unsigned int) strtoul(argv[1], NULL, 10);
	uint64_t n = strtoull(argv[2], NULL, 10);
	double theta = strtod(argv[3], NULL);
	long count = strtol(argv[4], NULL, 10);
	uint64_t mult = argc > 5 ? strtoull(argv[5], NULL, 0) : 0x61C8864680B583EBULL;
	struct taus t;
	t.s1 = at_least((unsigned int) (53 * 69069) ^ seed, 1);
	t.s2 = at_least(t.s1 * 69069 ^ seed, 7);
	t.s3 = at_least(t.s2 * 69069 ^ seed, 15);
	for (int i = 0; i < 6; i++)
		draw(&t);
	unsigned long rand_off = draw(&t);
	double zetan = 0.0;
	uint64_t terms = n < 10000000ULL ? n : 10000000ULL;
	for (unsigned int i = 0; i < terms; i++)
		zetan += pow(1.0 / (double) (i + 1), theta);
	double zeta2 = pow(1.0, theta) + pow(0.5, theta);
	for (long k = 0; k < count; k++) {
		double alpha = 1.0 / (1.0 - theta);
		double eta = (1.0 - pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta2 / zetan);
		double u = (double) draw(&t) / (double) 4294967295U;
		double z = u * zetan;
		unsigned long long val;
		if (z < 1.0)
			val = 1;
		else if (z < (1.0 + pow(0.5, theta)))
			val = 2;
		else
			val = 1 + (unsigned long long) (n * pow(eta * u - eta + 1.0, alpha));
		val--;
		val = val * mult;
		printf("%llu\n", (unsigned long long) ((val + rand_off) % n));
	}
	return 0;
}
