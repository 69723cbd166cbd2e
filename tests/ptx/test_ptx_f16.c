/* binary16 (src/sim/ptx/ptx_f16.c) and the .f16 instructions of one lane
 * (ptx_alu.c): exhaustive widening, rounding at every halfway point, the
 * overflow and underflow bounds, NaN, f64 -> f16 without double rounding,
 * and add/sub/mul/fma against an independent reference that finds the
 * correctly rounded result by searching the table of all binary16 values
 * with exact integer arithmetic. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ptx_alu.h"
#include "ptx_f16.h"

__extension__ typedef __int128 s128;

TestSuite(ptx_f16, .timeout = 60);

static const ptx_round k_rounds[] = { PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP };

static float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t f64_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

static bool is_nan16(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu); }
static bool is_inf16(uint16_t h) { return (h & 0x7FFFu) == 0x7C00u; }

/* The value of a finite non-negative binary16 h (h <= 0x7C00, 0x7C00 read
 * as 2^16, the first value past the largest finite) times 2^48: exact. */
static s128 scaled_value(unsigned h)
{
    unsigned biased = h >> 10, frac = h & 0x3FFu;
    s128 m = biased ? (s128)(frac | 0x400u) : (s128)frac;
    int e = biased ? (int)biased - 25 : -24;
    return m << (e + 48);
}

/* The correctly rounded binary16 of the exact value v * 2^-48 (v != 0), by
 * binary search of the table of every finite binary16: written without the
 * code under test's shift-and-round. */
static uint16_t reference_round(s128 v, ptx_round round)
{
    bool neg = v < 0;
    s128 mag = neg ? -v : v;
    uint16_t sign = neg ? 0x8000u : 0;
    bool away = round == PTX_RND_RP ? !neg : round == PTX_RND_RM ? neg : false;
    if (mag >= scaled_value(0x7C00u)) { /* at or past 2^16 */
        bool inf = round == PTX_RND_RN || round == PTX_RND_DEFAULT || away;
        return (uint16_t)(sign | (inf ? 0x7C00u : 0x7BFFu));
    }
    unsigned lo = 0, hi = 0x7C00u; /* table[lo] <= mag < table[hi] */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (scaled_value(mid) <= mag)
            lo = mid;
        else
            hi = mid;
    }
    if (scaled_value(lo) == mag)
        return (uint16_t)(sign | lo);
    unsigned pick;
    if (round == PTX_RND_RN || round == PTX_RND_DEFAULT) {
        s128 twice = 2 * mag, sum = scaled_value(lo) + scaled_value(hi);
        pick = twice < sum ? lo : twice > sum ? hi : (lo & 1u) ? hi : lo;
    } else {
        pick = away ? hi : lo;
    }
    return (uint16_t)(sign | pick); /* hi = 0x7C00: the overflow to infinity */
}

/* A finite binary16 as its exact value times 2^48. */
static s128 exact(uint16_t h)
{
    s128 v = scaled_value(h & 0x7FFFu);
    return (h & 0x8000u) ? -v : v;
}

/* The exact product of two finite halves, times 2^48 (below 2^80). */
static s128 exact_product(uint16_t a, uint16_t b)
{
    s128 pa = exact(a), pb = exact(b);
    /* each is m * 2^(e+48) with e + 48 >= 24: divide one by 2^24 exactly,
     * the other too, so the product is scaled by 2^48 */
    return (pa / ((s128)1 << 24)) * (pb / ((s128)1 << 24));
}

/* IEEE's sign of an exact zero sum of terms with signs sx and sy. */
static uint16_t zero_of(bool sx, bool sy, bool rm)
{
    return (sx == sy ? sx : rm) ? 0x8000u : 0;
}

static uint16_t reference_fma(uint16_t a, uint16_t b, uint16_t c, ptx_round r)
{
    s128 p = exact_product(a, b), v = p + exact(c);
    if (v != 0)
        return reference_round(v, r);
    bool sp = ((a ^ b) & 0x8000u) != 0, sc = (c & 0x8000u) != 0;
    if (p == 0 && exact(c) == 0)
        return zero_of(sp, sc, r == PTX_RND_RM);
    return r == PTX_RND_RM ? 0x8000u : 0;
}

static uint16_t reference_add(uint16_t a, uint16_t b, ptx_round r)
{
    return reference_fma(a, 0x3C00u, b, r); /* a * 1 + b: a * 1 is exact, with a's sign */
}

static uint16_t reference_mul(uint16_t a, uint16_t b, ptx_round r)
{
    s128 p = exact_product(a, b);
    return p ? reference_round(p, r) : (uint16_t)((a ^ b) & 0x8000u);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A random finite half; every fourth one close in exponent to `near`, so
 * sums cancel and carry. */
static uint16_t random_finite(uint16_t near)
{
    uint64_t r = next_random();
    uint16_t h;
    if ((r & 3u) == 0) {
        int exp = (int)((near >> 10) & 0x1Fu) + (int)((r >> 2) % 5u) - 2;
        exp = exp < 0 ? 0 : exp > 30 ? 30 : exp;
        h = (uint16_t)(((r >> 8) & 0x8000u) | ((unsigned)exp << 10) | ((r >> 20) & 0x3FFu));
    } else {
        h = (uint16_t)(r >> 16);
    }
    return is_nan16(h) || is_inf16(h) ? (uint16_t)(h & 0x83FFu) : h;
}

Test(ptx_f16, every_half_widens_exactly_and_round_trips)
{
    for (unsigned h = 0; h < 0x10000u; h++) {
        double d = ptx_f16_to_f64((uint16_t)h);
        float f = ptx_f16_to_f32((uint16_t)h);
        if (is_nan16((uint16_t)h)) {
            cr_assert(isnan(d) && isnan(f), "%04x", h);
            cr_assert_eq(signbit(d) != 0, (h & 0x8000u) != 0, "%04x keeps its sign", h);
            cr_assert_eq(ptx_f16_from_f64(f, PTX_RND_RN), PTX_F16_CANONICAL_NAN, "%04x", h);
            continue;
        }
        double want;
        unsigned biased = (h >> 10) & 0x1Fu, frac = h & 0x3FFu;
        if (biased == 0x1F)
            want = INFINITY;
        else if (biased == 0)
            want = ldexp((double)frac, -24);
        else
            want = ldexp((double)(frac | 0x400u), (int)biased - 25);
        if (h & 0x8000u)
            want = -want;
        cr_assert_eq(f64_bits(d), f64_bits(want), "f16 %04x -> f64 %a, not %a", h, d, want);
        cr_assert_eq(f64_bits((double)f), f64_bits(want), "f16 %04x -> f32 %a", h, (double)f);
        for (size_t r = 0; r < 4; r++) {
            cr_assert_eq(ptx_f16_from_f64(f, k_rounds[r]), h, "f16 %04x round trip (mode %zu)", h, r);
            cr_assert_eq(ptx_f16_from_f64(d, k_rounds[r]), h, "f16 %04x via f64 (mode %zu)", h, r);
        }
    }
}

Test(ptx_f16, every_halfway_point_rounds_to_even_and_its_neighbours_do_not)
{
    for (unsigned h = 0; h < 0x7BFFu; h++) {
        /* the midpoint of h and h + 1 has 12 significant bits: exact in f32 */
        float lo = ptx_f16_to_f32((uint16_t)h), hi = ptx_f16_to_f32((uint16_t)(h + 1));
        float mid = (lo + hi) / 2;
        cr_assert_eq((double)mid * 2, (double)lo + hi, "midpoint of %04x exact", h);
        uint16_t even = (h & 1u) ? (uint16_t)(h + 1) : (uint16_t)h;
        cr_assert_eq(ptx_f16_from_f64(mid, PTX_RND_RN), even, "tie at %04x", h);
        cr_assert_eq(ptx_f16_from_f64(-mid, PTX_RND_RN), even | 0x8000u, "-tie at %04x", h);
        cr_assert_eq(ptx_f16_from_f64(nextafterf(mid, 0), PTX_RND_RN), h, "below tie %04x", h);
        cr_assert_eq(ptx_f16_from_f64(nextafterf(mid, INFINITY), PTX_RND_RN), h + 1, "above %04x", h);
        cr_assert_eq(ptx_f16_from_f64(mid, PTX_RND_RZ), h);
        cr_assert_eq(ptx_f16_from_f64(mid, PTX_RND_RM), h);
        cr_assert_eq(ptx_f16_from_f64(mid, PTX_RND_RP), h + 1);
        cr_assert_eq(ptx_f16_from_f64(-mid, PTX_RND_RM), (h + 1) | 0x8000u);
        cr_assert_eq(ptx_f16_from_f64(-mid, PTX_RND_RP), h | 0x8000u);
    }
}

Test(ptx_f16, overflow_and_underflow_bounds)
{
    cr_assert_eq(ptx_f16_from_f64(65504.0, PTX_RND_RN), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_f64(nextafter(65520.0, 0), PTX_RND_RN), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_f64(65520.0, PTX_RND_RN), 0x7C00u); /* the tie goes to "even" inf */
    cr_assert_eq(ptx_f16_from_f64(-65520.0, PTX_RND_RN), 0xFC00u);
    cr_assert_eq(ptx_f16_from_f64(65520.0, PTX_RND_RZ), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_f64(1e300, PTX_RND_RZ), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_f64(1e300, PTX_RND_RM), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_f64(-1e300, PTX_RND_RM), 0xFC00u);
    cr_assert_eq(ptx_f16_from_f64(nextafter(65504.0, INFINITY), PTX_RND_RP), 0x7C00u);
    cr_assert_eq(ptx_f16_from_f64(-1e300, PTX_RND_RP), 0xFBFFu);
    cr_assert_eq(ptx_f16_from_f64(INFINITY, PTX_RND_RZ), 0x7C00u); /* infinity stays */
    /* 2^-24 is the smallest subnormal; half of it ties to even: 0 */
    cr_assert_eq(ptx_f16_from_f64(0x1p-24, PTX_RND_RN), 0x0001u);
    cr_assert_eq(ptx_f16_from_f64(0x1p-25, PTX_RND_RN), 0x0000u);
    cr_assert_eq(ptx_f16_from_f64(-0x1p-25, PTX_RND_RN), 0x8000u);
    cr_assert_eq(ptx_f16_from_f64(nextafter(0x1p-25, 1), PTX_RND_RN), 0x0001u);
    cr_assert_eq(ptx_f16_from_f64(3 * 0x1p-25, PTX_RND_RN), 0x0002u);
    cr_assert_eq(ptx_f16_from_f64(0x1p-1074, PTX_RND_RN), 0x0000u);
    cr_assert_eq(ptx_f16_from_f64(0x1p-1074, PTX_RND_RP), 0x0001u);
    cr_assert_eq(ptx_f16_from_f64(-0x1p-1074, PTX_RND_RM), 0x8001u);
    cr_assert_eq(ptx_f16_from_f64(-0x1p-1074, PTX_RND_RP), 0x8000u);
    /* the largest subnormal rounds up into the smallest normal */
    cr_assert_eq(ptx_f16_from_f64(0x1p-14 - 0x1p-26, PTX_RND_RN), 0x0400u);
    cr_assert_eq(ptx_f16_from_f64(-0.0, PTX_RND_RN), 0x8000u);
}

Test(ptx_f16, any_nan_becomes_the_canonical_nan)
{
    const uint32_t nans32[] = { 0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu };
    for (size_t i = 0; i < sizeof nans32 / sizeof nans32[0]; i++)
        for (size_t r = 0; r < 4; r++)
            cr_assert_eq(ptx_f16_from_f64(bits_f32(nans32[i]), k_rounds[r]), PTX_F16_CANONICAL_NAN);
    double nan64;
    uint64_t b = 0xFFF0000000000001ull;
    memcpy(&nan64, &b, 8);
    cr_assert_eq(ptx_f16_from_f64(nan64, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    /* the arithmetic: a NaN in, the canonical NaN out */
    cr_assert_eq(ptx_f16_add(0xFE01u, 0x3C00u, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_mul(0x3C00u, 0x7D00u, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_fma(0x3C00u, 0x3C00u, 0xFFFFu, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
}

Test(ptx_f16, f64_rounds_once_never_through_f32)
{
    /* just above the tie between 1 and 1 + 2^-10: f32 would round to the
     * tie itself and then to even (1); once, it is 1 + 2^-10 */
    double above = 1.0 + 0x1p-11 + 0x1p-40;
    cr_assert_eq(ptx_f16_from_f64((float)above, PTX_RND_RN), 0x3C00u, "the trap is real");
    cr_assert_eq(ptx_f16_from_f64(above, PTX_RND_RN), 0x3C01u);
    /* just below the tie between 1 + 2^-10 and 1 + 2^-9: f32 would give 0x3C02 */
    double below = 1.0 + 3 * 0x1p-11 - 0x1p-40;
    cr_assert_eq(ptx_f16_from_f64((float)below, PTX_RND_RN), 0x3C02u, "the trap is real");
    cr_assert_eq(ptx_f16_from_f64(below, PTX_RND_RN), 0x3C01u);
    /* a subnormal case: just above 2^-25 (the tie between 0 and 2^-24) */
    cr_assert_eq(ptx_f16_from_f64(0x1p-25 + 0x1p-60, PTX_RND_RN), 0x0001u);
    /* and through cvt.rn.f16.f64 */
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.op = PTX_OP_CVT;
    in.type = PTX_T_F16;
    in.type2 = PTX_T_F64;
    in.round = PTX_RND_RN;
    cr_assert_eq(ptx_alu(&in, f64_bits(above), 0, 0), 0x3C01u);
    cr_assert_eq(ptx_alu(&in, f64_bits(below), 0, 0), 0x3C01u);
}

Test(ptx_f16, the_reference_agrees_with_the_host_on_sums_it_can_check)
{
    /* add and mul of halves in f32 are exact or rounded once well enough
     * for RN (24 >= 2 * 11 + 2): a check of the reference itself */
    rng_state = 0x1234567887654321ull;
    for (int i = 0; i < 20000; i++) {
        uint16_t a = random_finite(0x3C00u), b = random_finite(a);
        float fs = ptx_f16_to_f32(a) + ptx_f16_to_f32(b), fp = ptx_f16_to_f32(a) * ptx_f16_to_f32(b);
        uint16_t s = reference_add(a, b, PTX_RND_RN), p = reference_mul(a, b, PTX_RND_RN);
        if (fs != 0)
            cr_assert_eq(f32_bits(ptx_f16_to_f32(s)), f32_bits(ptx_f16_to_f32(ptx_f16_from_f64(fs, PTX_RND_RN))),
                         "%04x + %04x", a, b);
        if (fp != 0 && fabsf(fp) >= 0x1p-24f)
            cr_assert_eq(p, ptx_f16_from_f64(fp, PTX_RND_RN), "%04x * %04x", a, b);
    }
}

Test(ptx_f16, add_sub_mul_fma_are_correctly_rounded_in_every_mode)
{
    rng_state = 0x0DDB1A5E5BAD5EEDull;
    for (int i = 0; i < 60000; i++) {
        uint16_t a = random_finite(0x3C00u), b = random_finite(a), c = random_finite(a);
        for (size_t r = 0; r < 4; r++) {
            ptx_round m = k_rounds[r];
            cr_assert_eq(ptx_f16_add(a, b, m), reference_add(a, b, m), "%04x + %04x mode %zu", a, b, r);
            cr_assert_eq(ptx_f16_sub(a, b, m), reference_add(a, (uint16_t)(b ^ 0x8000u), m),
                         "%04x - %04x mode %zu", a, b, r);
            cr_assert_eq(ptx_f16_mul(a, b, m), reference_mul(a, b, m), "%04x * %04x mode %zu", a, b, r);
            cr_assert_eq(ptx_f16_fma(a, b, c, m), reference_fma(a, b, c, m),
                         "fma(%04x, %04x, %04x) mode %zu", a, b, c, r);
        }
    }
}

Test(ptx_f16, arithmetic_edge_cases)
{
    const uint16_t inf = 0x7C00u, ninf = 0xFC00u, one = 0x3C00u, none = 0xBC00u;
    cr_assert_eq(ptx_f16_add(inf, ninf, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_sub(inf, inf, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_add(inf, one, PTX_RND_RN), inf);
    cr_assert_eq(ptx_f16_mul(0x0000u, inf, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_mul(0x8000u, ninf, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_mul(none, inf, PTX_RND_RN), ninf);
    cr_assert_eq(ptx_f16_fma(0x0000u, inf, one, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_fma(one, inf, ninf, PTX_RND_RN), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ptx_f16_fma(one, one, ninf, PTX_RND_RN), ninf);
    cr_assert_eq(ptx_f16_fma(one, inf, inf, PTX_RND_RN), inf);
    /* signs of zero */
    cr_assert_eq(ptx_f16_add(one, none, PTX_RND_RN), 0x0000u);
    cr_assert_eq(ptx_f16_add(one, none, PTX_RND_RM), 0x8000u);
    cr_assert_eq(ptx_f16_add(0x8000u, 0x8000u, PTX_RND_RN), 0x8000u);
    cr_assert_eq(ptx_f16_add(0x8000u, 0x0000u, PTX_RND_RN), 0x0000u);
    cr_assert_eq(ptx_f16_add(0x8000u, 0x0000u, PTX_RND_RM), 0x8000u);
    cr_assert_eq(ptx_f16_sub(0x0000u, 0x0000u, PTX_RND_RN), 0x0000u);
    cr_assert_eq(ptx_f16_mul(none, 0x0000u, PTX_RND_RN), 0x8000u);
    cr_assert_eq(ptx_f16_mul(none, 0x0000u, PTX_RND_RP), 0x8000u);
    cr_assert_eq(ptx_f16_mul(0x0001u, 0x0001u, PTX_RND_RN), 0x0000u); /* 2^-48 underflows */
    cr_assert_eq(ptx_f16_mul(0x8001u, 0x0001u, PTX_RND_RN), 0x8000u);
    cr_assert_eq(ptx_f16_mul(0x0001u, 0x0001u, PTX_RND_RP), 0x0001u);
    cr_assert_eq(ptx_f16_fma(0x8000u, one, 0x0000u, PTX_RND_RN), 0x0000u);
    cr_assert_eq(ptx_f16_fma(0x8000u, one, 0x8000u, PTX_RND_RN), 0x8000u);
    cr_assert_eq(ptx_f16_fma(one, one, none, PTX_RND_RM), 0x8000u);
    /* fma rounds once: 1 + 2^-11 (exact product) + tiny lands above the tie */
    cr_assert_eq(ptx_f16_fma(0x3C01u, 0x3C01u, 0x0001u, PTX_RND_RN), 0x3C02u);
    /* 65504 + 16 = 65520: the overflow tie */
    cr_assert_eq(ptx_f16_add(0x7BFFu, 0x4C00u, PTX_RND_RN), inf);
    cr_assert_eq(ptx_f16_add(0x7BFFu, 0x4C00u, PTX_RND_RZ), 0x7BFFu);
    cr_assert_eq(ptx_f16_add(0x7BFFu, 0x4B00u, PTX_RND_RN), 0x7BFFu); /* + 14: below the tie */
}

Test(ptx_f16, integers_to_half)
{
    cr_assert_eq(ptx_f16_from_int(2049, false, PTX_RND_RN), 0x6800u); /* tie: 2048 */
    cr_assert_eq(ptx_f16_from_int(2051, false, PTX_RND_RN), 0x6802u); /* tie: 2052 */
    cr_assert_eq(ptx_f16_from_int(2049, false, PTX_RND_RP), 0x6801u);
    cr_assert_eq(ptx_f16_from_int(65504, false, PTX_RND_RN), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_int(65519, false, PTX_RND_RN), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_int(65520, false, PTX_RND_RN), 0x7C00u);
    cr_assert_eq(ptx_f16_from_int(UINT64_MAX, false, PTX_RND_RN), 0x7C00u);
    cr_assert_eq(ptx_f16_from_int(UINT64_MAX, false, PTX_RND_RZ), 0x7BFFu);
    cr_assert_eq(ptx_f16_from_int(UINT64_MAX, true, PTX_RND_RN), 0xBC00u); /* -1 */
    cr_assert_eq(ptx_f16_from_int((uint64_t)INT64_MIN, true, PTX_RND_RN), 0xFC00u);
    cr_assert_eq(ptx_f16_from_int((uint64_t)INT64_MIN, true, PTX_RND_RZ), 0xFBFFu);
    cr_assert_eq(ptx_f16_from_int(0, true, PTX_RND_RM), 0x0000u); /* integer zero is +0 */
    for (int v = -70000; v <= 70000; v += 7)
        cr_assert_eq(ptx_f16_from_int((uint64_t)(int64_t)v, true, PTX_RND_RN),
                     reference_round((s128)v * ((s128)1 << 48), PTX_RND_RN), "%d", v);
}

/* ---- the .f16 instructions of one lane (ptx_alu) ------------------------ */

static uint64_t run(ptx_opcode op, ptx_type to, ptx_type from, unsigned mods, ptx_round round,
                    ptx_cmp cmp, uint64_t a, uint64_t b, uint64_t c)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.op = (uint8_t)op;
    in.type = (uint8_t)to;
    in.type2 = (uint8_t)from;
    in.mods = (uint16_t)mods;
    in.round = (uint8_t)round;
    in.cmp = (uint8_t)cmp;
    ptx_type ta = op == PTX_OP_CVT ? from : to;
    ptx_type tdst = op == PTX_OP_SETP ? PTX_T_PRED : to;
    return ptx_value_store(ptx_alu(&in, ptx_value_as(a, ta), ptx_value_as(b, to), ptx_value_as(c, to)),
                           tdst);
}

#define CVT(to, from, rnd, a) run(PTX_OP_CVT, (to), (from), 0, (rnd), 0, (a), 0, 0)
#define SETP(cmp, a, b) run(PTX_OP_SETP, PTX_T_F16, PTX_T_NONE, 0, 0, (cmp), (a), (b), 0)

Test(ptx_f16, cvt_between_half_integers_and_floats)
{
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_F32, PTX_RND_RN, f32_bits(1.0f)), 0x3C00u);
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_F32, PTX_RND_RN, 0x7FC00000u), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_F32, PTX_RND_RZ, f32_bits(65535.0f)), 0x7BFFu);
    cr_assert_eq(CVT(PTX_T_F32, PTX_T_F16, PTX_RND_DEFAULT, 0x0001u), f32_bits(0x1p-24f));
    cr_assert_eq(CVT(PTX_T_F32, PTX_T_F16, PTX_RND_DEFAULT, 0xFC00u), f32_bits(-INFINITY));
    cr_assert_eq(CVT(PTX_T_F64, PTX_T_F16, PTX_RND_DEFAULT, 0x8000u), f64_bits(-0.0));
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_S32, PTX_RND_RN, (uint32_t)-3), 0xC200u);
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_U32, PTX_RND_RN, 0xFFFFFFFFu), 0x7C00u); /* not -1 */
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_S8, PTX_RND_RN, 0x80u), 0xD800u);        /* -128 */
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_U16, PTX_RND_RZ, 0xFFFFu), 0x7BFFu);
    /* half to integers: integral roundings, NaN to 0, saturation */
    cr_assert_eq(CVT(PTX_T_S32, PTX_T_F16, PTX_RND_RNI, 0x4100u), 2);          /* 2.5 */
    cr_assert_eq(CVT(PTX_T_S32, PTX_T_F16, PTX_RND_RNI, 0x4300u), 4);          /* 3.5 */
    cr_assert_eq(CVT(PTX_T_S32, PTX_T_F16, PTX_RND_RMI, 0xB800u), 0xFFFFFFFFu); /* -0.5 -> -1 */
    cr_assert_eq(CVT(PTX_T_S32, PTX_T_F16, PTX_RND_RPI, 0x3800u), 1);
    cr_assert_eq(CVT(PTX_T_S32, PTX_T_F16, PTX_RND_RZI, 0xC100u), (uint32_t)-2);
    cr_assert_eq(CVT(PTX_T_U32, PTX_T_F16, PTX_RND_RZI, PTX_F16_CANONICAL_NAN), 0);
    cr_assert_eq(CVT(PTX_T_U8, PTX_T_F16, PTX_RND_RZI, 0x7BFFu), 0xFFu);
    cr_assert_eq(CVT(PTX_T_S8, PTX_T_F16, PTX_RND_RZI, 0xFC00u), 0x80u);
    cr_assert_eq(CVT(PTX_T_U16, PTX_T_F16, PTX_RND_RZI, 0xBC00u), 0);
    cr_assert_eq(CVT(PTX_T_S64, PTX_T_F16, PTX_RND_RZI, 0x7C00u), (uint64_t)INT64_MAX);
    cr_assert_eq(CVT(PTX_T_U64, PTX_T_F16, PTX_RND_RZI, 0x7BFFu), 65504);
    /* f16 to f16 with an integral rounding */
    cr_assert_eq(CVT(PTX_T_F16, PTX_T_F16, PTX_RND_RNI, 0x4100u), 0x4000u);
    /* cvt's .ftz flushes f32 values only: an f16 subnormal in or out stays */
    cr_assert_eq(run(PTX_OP_CVT, PTX_T_F32, PTX_T_F16, PTX_MOD_FTZ, PTX_RND_DEFAULT, 0, 0x0001u, 0, 0),
                 f32_bits(0x1p-24f));
    cr_assert_eq(run(PTX_OP_CVT, PTX_T_F16, PTX_T_F32, PTX_MOD_FTZ, PTX_RND_RN, 0, f32_bits(0x1p-20f), 0, 0),
                 0x0010u);
    cr_assert_eq(run(PTX_OP_CVT, PTX_T_F16, PTX_T_F32, PTX_MOD_FTZ, PTX_RND_RP, 0, 0x00000001u, 0, 0), 0,
                 "an f32 subnormal in is flushed");
    cr_assert_eq(run(PTX_OP_CVT, PTX_T_F16, PTX_T_F32, 0, PTX_RND_RP, 0, 0x00000001u, 0, 0), 0x0001u);
    /* .sat: clamped to [0, 1] */
    cr_assert_eq(run(PTX_OP_CVT, PTX_T_F16, PTX_T_F32, PTX_MOD_SAT, PTX_RND_RN, 0, f32_bits(7.0f), 0, 0),
                 0x3C00u);
    cr_assert_eq(run(PTX_OP_CVT, PTX_T_F16, PTX_T_F32, PTX_MOD_SAT, PTX_RND_RN, 0, 0x7FC00000u, 0, 0), 0);
}

Test(ptx_f16, setp_on_halves)
{
    const uint64_t nan = PTX_F16_CANONICAL_NAN, one = 0x3C00u, two = 0x4000u;
    cr_assert_eq(SETP(PTX_CMP_LT, one, two), 1);
    cr_assert_eq(SETP(PTX_CMP_LT, 0xC000u, 0xBC00u), 1); /* -2 < -1: not the bits' order */
    cr_assert_eq(SETP(PTX_CMP_GT, 0x0002u, 0x0001u), 1); /* subnormals are compared, not flushed */
    cr_assert_eq(SETP(PTX_CMP_EQ, 0x8000u, 0x0000u), 1);
    cr_assert_eq(SETP(PTX_CMP_EQ, nan, nan), 0);
    cr_assert_eq(SETP(PTX_CMP_NE, nan, one), 0);
    cr_assert_eq(SETP(PTX_CMP_NEU, nan, one), 1);
    cr_assert_eq(SETP(PTX_CMP_LTU, nan, one), 1);
    cr_assert_eq(SETP(PTX_CMP_GEU, one, two), 0);
    cr_assert_eq(SETP(PTX_CMP_NAN, one, nan), 1);
    cr_assert_eq(SETP(PTX_CMP_NUM, one, two), 1);
    cr_assert_eq(SETP(PTX_CMP_LE, 0x7C00u, 0x7C00u), 1);
}

Test(ptx_f16, min_max_abs_neg_ftz_sat)
{
#define ALU(op, mods, a, b) run((op), PTX_T_F16, PTX_T_NONE, (mods), PTX_RND_DEFAULT, 0, (a), (b), 0)
    cr_assert_eq(ALU(PTX_OP_MIN, 0, PTX_F16_CANONICAL_NAN, 0x3C00u), 0x3C00u);
    cr_assert_eq(ALU(PTX_OP_MAX, 0, 0x3C00u, 0x7E00u), 0x3C00u);
    cr_assert_eq(ALU(PTX_OP_MAX, 0, 0x7E00u, 0xFE00u), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ALU(PTX_OP_MIN, 0, 0x0000u, 0x8000u), 0x8000u);
    cr_assert_eq(ALU(PTX_OP_MAX, 0, 0x8000u, 0x0000u), 0x0000u);
    cr_assert_eq(ALU(PTX_OP_MIN, 0, 0xC000u, 0x0001u), 0xC000u);
    cr_assert_eq(ALU(PTX_OP_ABS, 0, 0x8001u, 0), 0x0001u);
    cr_assert_eq(ALU(PTX_OP_ABS, PTX_MOD_FTZ, 0x8001u, 0), 0x0000u);
    cr_assert_eq(ALU(PTX_OP_NEG, 0, 0x0000u, 0), 0x8000u);
    cr_assert_eq(ALU(PTX_OP_NEG, PTX_MOD_FTZ, 0x03FFu, 0), 0x8000u);
    /* add: default rounding is nearest even; .ftz flushes inputs and results */
    cr_assert_eq(ALU(PTX_OP_ADD, 0, 0x0001u, 0x0001u), 0x0002u);
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_FTZ, 0x0001u, 0x3C00u), 0x3C00u);
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_FTZ, 0x0200u, 0x0200u), 0x0000u); /* flushed inputs */
    cr_assert_eq(ALU(PTX_OP_MUL, PTX_MOD_FTZ, 0x1C00u, 0x1C00u), 0x0000u); /* the result... */
    cr_assert_eq(ALU(PTX_OP_MUL, 0, 0x1C00u, 0x1C00u), 0x0100u);            /* ...2^-16 */
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_SAT, 0x3C00u, 0x3C00u), 0x3C00u);
    cr_assert_eq(ALU(PTX_OP_SUB, PTX_MOD_SAT, 0x3C00u, 0x4000u), 0x0000u);
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_SAT, 0x7C00u, 0xFC00u), 0x0000u); /* NaN: 0 */
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_SAT, 0xFC00u, 0x3C00u), 0x0000u); /* -inf: 0 */
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_SAT, 0x7C00u, 0x3C00u), 0x3C00u); /* inf: 1 */
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_SAT, 0x8000u, 0x8000u), 0x8000u); /* -0 stays, as .f32 */
    cr_assert_eq(ALU(PTX_OP_ADD, PTX_MOD_SAT, 0x3800u, 0x0000u), 0x3800u);
    cr_assert_eq(run(PTX_OP_FMA, PTX_T_F16, PTX_T_NONE, 0, PTX_RND_RN, 0, 0x3C01u, 0x3C01u, 0x0001u),
                 0x3C02u);
#undef ALU
}

#define SET(cmp, boolop, dtype, stype, a, b, c) run_set((cmp), (boolop), (dtype), (stype), (a), (b), (c))
static uint64_t run_set(ptx_cmp cmp, ptx_boolop boolop, ptx_type dtype, ptx_type stype, uint64_t a,
                        uint64_t b, uint64_t c)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.op = PTX_OP_SET;
    in.type = (uint8_t)dtype;
    in.type2 = (uint8_t)stype;
    in.cmp = (uint8_t)cmp;
    in.boolop = (uint8_t)boolop;
    return ptx_value_store(ptx_alu(&in, ptx_value_as(a, stype), ptx_value_as(b, stype), c), dtype);
}

Test(ptx_f16, set_writes_the_destination_types_true_value)
{
    const uint64_t nan = PTX_F16_CANONICAL_NAN;
    /* cuda_fp16.h's special-case tables: set.eq.f16.f16 gives 1.0 or 0 */
    cr_assert_eq(SET(PTX_CMP_EQ, PTX_BOOL_NONE, PTX_T_F16, PTX_T_F16, 0x32B3u, 0x32B3u, 0), 0x3C00u);
    cr_assert_eq(SET(PTX_CMP_EQ, PTX_BOOL_NONE, PTX_T_F16, PTX_T_F16, 0x32B3u, 0x32B4u, 0), 0);
    cr_assert_eq(SET(PTX_CMP_EQ, PTX_BOOL_NONE, PTX_T_F16, PTX_T_F16, 0x8000u, 0x0000u, 0), 0x3C00u);
    cr_assert_eq(SET(PTX_CMP_NAN, PTX_BOOL_NONE, PTX_T_F16, PTX_T_F16, nan, nan, 0), 0x3C00u);
    cr_assert_eq(SET(PTX_CMP_NAN, PTX_BOOL_NONE, PTX_T_F16, PTX_T_F16, 0x7C00u, 0x7C00u, 0), 0);
    /* integer destinations: all ones at their width */
    cr_assert_eq(SET(PTX_CMP_LT, PTX_BOOL_NONE, PTX_T_U32, PTX_T_F32, f32_bits(1.0f), f32_bits(2.0f), 0),
                 0xFFFFFFFFu);
    cr_assert_eq(SET(PTX_CMP_LT, PTX_BOOL_NONE, PTX_T_U16, PTX_T_F16, 0xC000u, 0xBC00u, 0), 0xFFFFu);
    cr_assert_eq(SET(PTX_CMP_GT, PTX_BOOL_NONE, PTX_T_S32, PTX_T_S32, (uint32_t)-1, 0, 0), 0);
    cr_assert_eq(SET(PTX_CMP_HI, PTX_BOOL_NONE, PTX_T_S32, PTX_T_U32, 0xFFFFFFFFu, 0, 0), 0xFFFFFFFFu);
    cr_assert_eq(SET(PTX_CMP_GE, PTX_BOOL_NONE, PTX_T_F32, PTX_T_F64, f64_bits(2.0), f64_bits(2.0), 0),
                 f32_bits(1.0f));
    /* with the boolean operation on the predicate c */
    cr_assert_eq(SET(PTX_CMP_EQ, PTX_BOOL_AND, PTX_T_F16, PTX_T_F16, 0x3C00u, 0x3C00u, 0), 0);
    cr_assert_eq(SET(PTX_CMP_EQ, PTX_BOOL_AND, PTX_T_F16, PTX_T_F16, 0x3C00u, 0x3C00u, 1), 0x3C00u);
    cr_assert_eq(SET(PTX_CMP_NE, PTX_BOOL_OR, PTX_T_U32, PTX_T_F16, 0x3C00u, 0x3C00u, 1), 0xFFFFFFFFu);
    cr_assert_eq(SET(PTX_CMP_EQ, PTX_BOOL_XOR, PTX_T_U32, PTX_T_F16, 0x3C00u, 0x3C00u, 1), 0);
}

Test(ptx_f16, min_max_nan_propagate_nan)
{
#define ALUN(op, t, a, b) run((op), (t), PTX_T_NONE, PTX_MOD_NAN, PTX_RND_DEFAULT, 0, (a), (b), 0)
    cr_assert_eq(ALUN(PTX_OP_MAX, PTX_T_F16, 0x3C00u, 0x7E00u), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ALUN(PTX_OP_MIN, PTX_T_F16, 0xFE01u, 0x3C00u), PTX_F16_CANONICAL_NAN);
    cr_assert_eq(ALUN(PTX_OP_MIN, PTX_T_F16, 0x8000u, 0x0000u), 0x8000u);
    cr_assert_eq(ALUN(PTX_OP_MAX, PTX_T_F16, 0xC000u, 0x3C00u), 0x3C00u);
    cr_assert_eq(ALUN(PTX_OP_MAX, PTX_T_F32, f32_bits(1.0f), 0x7FC00001u), 0x7FFFFFFFu);
    cr_assert_eq(ALUN(PTX_OP_MIN, PTX_T_F32, f32_bits(1.0f), f32_bits(-3.0f)), f32_bits(-3.0f));
#undef ALUN
}
