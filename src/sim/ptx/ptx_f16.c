/* IEEE 754 binary16 conversions and arithmetic: see ptx_f16.h.
 *
 * Every finite binary16 is m * 2^e with an integer m < 2^11 and e in
 * [-24, 5]; sums and products of such values are computed exactly in
 * (128-bit) integers and rounded once by round_magnitude, which never goes
 * through a host float, so no host rounding mode or double rounding is
 * involved. */
#include "ptx_f16.h"

#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define F16_SIGN 0x8000u
#define F16_INF 0x7C00u
#define F16_MAX_FINITE 0x7BFFu /* 65504 */

bool ptx_f16_is_nan(uint16_t h)
{
    return (h & 0x7C00u) == 0x7C00u && (h & 0x03FFu) != 0;
}

bool ptx_f16_is_subnormal(uint16_t h)
{
    return (h & 0x7C00u) == 0 && (h & 0x03FFu) != 0;
}

static bool is_inf(uint16_t h) { return (h & 0x7FFFu) == F16_INF; }

/* A finite h as sign, m (the significand, with its implicit bit) and e:
 * |h| = m * 2^e. */
static void decode_finite(uint16_t h, bool *neg, uint32_t *m, int *e)
{
    unsigned biased = (h >> 10) & 0x1Fu, frac = h & 0x3FFu;
    *neg = (h & F16_SIGN) != 0;
    *m = biased ? (frac | 0x400u) : frac;
    *e = biased ? (int)biased - 25 : -24;
}

double ptx_f16_to_f64(uint16_t h)
{
    uint64_t sign = (uint64_t)(h & F16_SIGN) << 48;
    unsigned biased = (h >> 10) & 0x1Fu;
    uint64_t frac = h & 0x3FFu, bits;
    if (biased == 0x1F) { /* inf, or NaN with its payload at the top */
        bits = sign | 0x7FF0000000000000ull | (frac << 42);
    } else if (biased == 0 && frac == 0) {
        bits = sign;
    } else {
        bool neg;
        uint32_t m;
        int e;
        decode_finite(h, &neg, &m, &e);
        /* normalise m to 11 bits: subnormals have fewer */
        while (m < 0x400u) {
            m <<= 1;
            e--;
        }
        uint64_t exp_field = (uint64_t)(e + 10 + 1023); /* |h| = 1.f * 2^(e+10) */
        bits = sign | (exp_field << 52) | ((uint64_t)(m & 0x3FFu) << 42);
    }
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

float ptx_f16_to_f32(uint16_t h)
{
    return (float)ptx_f16_to_f64(h); /* exact: every binary16 (and its NaN payload) fits */
}

static unsigned highest_bit(u128 v) /* v != 0 */
{
    unsigned p = 0;
    uint64_t hi = (uint64_t)(v >> 64);
    if (hi) {
        v = hi;
        p = 64;
    }
    uint64_t lo = (uint64_t)v;
    return p + 63u - (unsigned)__builtin_clzll(lo);
}

static uint16_t overflow_result(bool neg, ptx_round round)
{
    bool to_inf = round == PTX_RND_RZ ? false
                : round == PTX_RND_RM ? neg
                : round == PTX_RND_RP ? !neg
                : true;
    return (uint16_t)((neg ? F16_SIGN : 0) | (to_inf ? F16_INF : F16_MAX_FINITE));
}

/* mag * 2^exp (mag != 0, mag < 2^127), with sign neg, rounded once to
 * binary16. The result's last kept bit has weight 2^q, q = max(E, -14) - 10
 * where 2^E <= value < 2^(E+1); the encoding of kept * 2^q is then
 * ((q + 24) << 10) + kept for normals, subnormals and a carry into the next
 * binade alike. */
static uint16_t round_magnitude(bool neg, u128 mag, int exp, ptx_round round)
{
    int top = (int)highest_bit(mag) + exp;
    int q = (top > -14 ? top : -14) - 10;
    int shift = q - exp;
    u128 kept;
    bool above_half = false, exactly_half = false, inexact = false;
    if (shift <= 0) {
        kept = mag << (unsigned)-shift; /* exact, below 2^11 */
    } else if (shift > 127) {
        kept = 0; /* mag < 2^127 <= half the kept bit's weight: below half */
        inexact = true;
    } else {
        kept = mag >> (unsigned)shift;
        u128 rest = mag & (((u128)1 << (unsigned)shift) - 1);
        u128 half = (u128)1 << (unsigned)(shift - 1);
        inexact = rest != 0;
        above_half = rest > half;
        exactly_half = rest == half;
    }
    bool up;
    switch (round) {
    case PTX_RND_RZ: up = false; break;
    case PTX_RND_RM: up = inexact && neg; break;
    case PTX_RND_RP: up = inexact && !neg; break;
    default: up = above_half || (exactly_half && (kept & 1u)); break;
    }
    kept += up;
    int64_t bits = ((int64_t)(q + 24) << 10) + (int64_t)kept;
    if (bits >= (int64_t)F16_INF)
        return overflow_result(neg, round);
    return (uint16_t)((neg ? F16_SIGN : 0) | (uint16_t)bits);
}

uint16_t ptx_f16_from_f64(double d, ptx_round round)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    bool neg = (bits >> 63) != 0;
    unsigned biased = (unsigned)(bits >> 52) & 0x7FFu;
    uint64_t frac = bits & 0xFFFFFFFFFFFFFull;
    if (biased == 0x7FF)
        return frac ? PTX_F16_CANONICAL_NAN : (uint16_t)((neg ? F16_SIGN : 0) | F16_INF);
    if (biased == 0 && frac == 0)
        return neg ? F16_SIGN : 0;
    u128 mag = biased ? (frac | (1ull << 52)) : frac;
    int exp = biased ? (int)biased - 1075 : -1074;
    return round_magnitude(neg, mag, exp, round);
}

uint16_t ptx_f16_from_int(uint64_t v, bool is_signed, ptx_round round)
{
    bool neg = is_signed && (int64_t)v < 0;
    uint64_t mag = neg ? 0 - v : v; /* INT64_MIN: 2^63 */
    if (mag == 0)
        return 0;
    return round_magnitude(neg, mag, 0, round);
}

/* The sign of an exact zero sum of two terms with signs neg_x and neg_y
 * (IEEE: equal signs keep theirs, else +0, -0 when rounding down). */
static uint16_t zero_sum(bool neg_x, bool neg_y, ptx_round round)
{
    bool neg = neg_x == neg_y ? neg_x : round == PTX_RND_RM;
    return neg ? F16_SIGN : 0;
}

/* x + y for exact finite terms x = (neg_x, mx * 2^exp), y likewise,
 * rounded once. */
static uint16_t exact_sum(bool neg_x, u128 mx, bool neg_y, u128 my, int exp, ptx_round round)
{
    if (mx == 0 && my == 0)
        return zero_sum(neg_x, neg_y, round);
    if (neg_x == neg_y)
        return round_magnitude(neg_x, mx + my, exp, round);
    if (mx == my) /* exact cancellation: +0, or -0 when rounding down */
        return round == PTX_RND_RM ? F16_SIGN : 0;
    return mx > my ? round_magnitude(neg_x, mx - my, exp, round)
                   : round_magnitude(neg_y, my - mx, exp, round);
}

uint16_t ptx_f16_add(uint16_t a, uint16_t b, ptx_round round)
{
    if (ptx_f16_is_nan(a) || ptx_f16_is_nan(b))
        return PTX_F16_CANONICAL_NAN;
    if (is_inf(a) || is_inf(b)) {
        if (is_inf(a) && is_inf(b) && ((a ^ b) & F16_SIGN))
            return PTX_F16_CANONICAL_NAN; /* inf - inf */
        return is_inf(a) ? a : b;
    }
    bool na, nb;
    uint32_t ma, mb;
    int ea, eb;
    decode_finite(a, &na, &ma, &ea);
    decode_finite(b, &nb, &mb, &eb);
    /* both as multiples of 2^-24: below 2^40 */
    return exact_sum(na, (u128)ma << (unsigned)(ea + 24), nb, (u128)mb << (unsigned)(eb + 24), -24,
                     round);
}

uint16_t ptx_f16_sub(uint16_t a, uint16_t b, ptx_round round)
{
    return ptx_f16_add(a, (uint16_t)(b ^ F16_SIGN), round);
}

uint16_t ptx_f16_mul(uint16_t a, uint16_t b, ptx_round round)
{
    if (ptx_f16_is_nan(a) || ptx_f16_is_nan(b))
        return PTX_F16_CANONICAL_NAN;
    uint16_t sign = (uint16_t)((a ^ b) & F16_SIGN);
    if (is_inf(a) || is_inf(b)) {
        if ((a & 0x7FFFu) == 0 || (b & 0x7FFFu) == 0)
            return PTX_F16_CANONICAL_NAN; /* 0 * inf */
        return (uint16_t)(sign | F16_INF);
    }
    bool na, nb;
    uint32_t ma, mb;
    int ea, eb;
    decode_finite(a, &na, &ma, &ea);
    decode_finite(b, &nb, &mb, &eb);
    u128 mag = (u128)ma * mb;
    if (mag == 0)
        return sign;
    return round_magnitude(sign != 0, mag, ea + eb, round);
}

uint16_t ptx_f16_fma(uint16_t a, uint16_t b, uint16_t c, ptx_round round)
{
    if (ptx_f16_is_nan(a) || ptx_f16_is_nan(b) || ptx_f16_is_nan(c))
        return PTX_F16_CANONICAL_NAN;
    bool neg_p = ((a ^ b) & F16_SIGN) != 0;
    if (is_inf(a) || is_inf(b)) {
        if ((a & 0x7FFFu) == 0 || (b & 0x7FFFu) == 0)
            return PTX_F16_CANONICAL_NAN; /* 0 * inf */
        if (is_inf(c) && ((c & F16_SIGN) != 0) != neg_p)
            return PTX_F16_CANONICAL_NAN; /* inf - inf */
        return (uint16_t)((neg_p ? F16_SIGN : 0) | F16_INF);
    }
    if (is_inf(c))
        return c;
    bool na, nb, nc;
    uint32_t ma, mb, mc;
    int ea, eb, ec;
    decode_finite(a, &na, &ma, &ea);
    decode_finite(b, &nb, &mb, &eb);
    decode_finite(c, &nc, &mc, &ec);
    /* both as multiples of 2^-48: the product below 2^80, c below 2^64 */
    u128 p = ((u128)ma * mb) << (unsigned)(ea + eb + 48);
    u128 cm = (u128)mc << (unsigned)(ec + 48);
    return exact_sum(neg_p, p, nc, cm, -48, round);
}
