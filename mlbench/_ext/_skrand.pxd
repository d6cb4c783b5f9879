# scikit-learn's tree random stream (sklearn/tree/_utils.pyx, 1.9), shared by the kernels that
# replicate its splitters node for node: the same xorshift, the same integer and uniform draws.
from mlbench._ext._typedefs cimport float64_t, intp_t

ctypedef unsigned int uint32_t

cdef enum:
    RAND_R_MAX = 2147483647
    DEFAULT_SEED = 1


cdef inline uint32_t rand_r(uint32_t* seed) noexcept nogil:
    # scikit-learn's our_rand_r (xorshift); a zero state is replaced by DEFAULT_SEED as there
    if seed[0] == 0:
        seed[0] = DEFAULT_SEED
    seed[0] ^= <uint32_t>(seed[0] << 13)
    seed[0] ^= <uint32_t>(seed[0] >> 17)
    seed[0] ^= <uint32_t>(seed[0] << 5)
    return seed[0] % (<uint32_t>RAND_R_MAX + 1)


cdef inline intp_t rand_int(intp_t low, intp_t high, uint32_t* seed) noexcept nogil:
    """An integer in [low, high)."""
    return low + rand_r(seed) % (high - low)


cdef inline float64_t rand_uniform(float64_t low, float64_t high, uint32_t* seed) noexcept nogil:
    """A float64 in [low, high), written as scikit-learn writes it."""
    return ((high - low) * <float64_t>rand_r(seed) / <float64_t>RAND_R_MAX) + low
