# scikit-learn's tree machinery (1.9) that the kernels replicating its trees node for node share:
# the random stream (sklearn/tree/_utils.pyx) and the visit of the features at a node.
from libc.string cimport memcpy

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


# ---- scikit-learn's visit of the features at one node (sklearn/tree/_splitter.pyx) --------------
#
# Up to ``max_features`` features are drawn without replacement by a Fisher-Yates walk over
# ``features``; those known to be constant from an ancestor are skipped cheaply, those found
# constant here are saved for the descendants.  A builder calls draw_start, then while draw_more:
# f = draw_next (-1: a known constant, draw again), then draw_constant or draw_keep for f, and
# draw_finish at the end.

cdef struct Draw:
    intp_t f_i          # features[f_i:] were drawn and are not constant
    intp_t f_j          # position of the feature draw_next returned
    intp_t n_visited
    intp_t n_found      # found constant at this node
    intp_t n_drawn      # known constant and drawn
    intp_t n_known      # known constant from the ancestors
    intp_t n_total      # n_known + n_found


cdef inline void draw_start(Draw* d, intp_t n_features, intp_t n_known) noexcept nogil:
    d.f_i = n_features
    d.f_j = 0
    d.n_visited = 0
    d.n_found = 0
    d.n_drawn = 0
    d.n_known = n_known
    d.n_total = n_known


cdef inline bint draw_more(Draw* d, intp_t max_features) noexcept nogil:
    # stop once every remaining feature is constant, or max_features were visited and at least
    # one of them was not constant
    return d.f_i > d.n_total and (d.n_visited < max_features
                                  or d.n_visited <= d.n_found + d.n_drawn)


cdef inline intp_t draw_next(Draw* d, intp_t* features, uint32_t* rand_state) noexcept nogil:
    """The next feature to evaluate, or -1 when the draw hit a feature known to be constant."""
    cdef intp_t f_j
    d.n_visited += 1
    f_j = rand_int(d.n_drawn, d.f_i - d.n_found, rand_state)
    if f_j < d.n_known:
        features[d.n_drawn], features[f_j] = features[f_j], features[d.n_drawn]
        d.n_drawn += 1
        return -1
    d.f_j = f_j + d.n_found
    return features[d.f_j]


cdef inline void draw_constant(Draw* d, intp_t* features) noexcept nogil:
    """The feature draw_next returned is constant in this node."""
    features[d.f_j], features[d.n_total] = features[d.n_total], features[d.f_j]
    d.n_found += 1
    d.n_total += 1


cdef inline void draw_keep(Draw* d, intp_t* features) noexcept nogil:
    """The feature draw_next returned is not constant: it is evaluated."""
    d.f_i -= 1
    features[d.f_i], features[d.f_j] = features[d.f_j], features[d.f_i]


cdef inline void draw_finish(Draw* d, intp_t* features, intp_t* constant_features) noexcept nogil:
    """The constant-feature invariant: features[:n_known] restored in their order for the siblings
    and children, the newly found constants saved after them."""
    if d.n_known > 0:
        memcpy(features, constant_features, sizeof(intp_t) * d.n_known)
    if d.n_found > 0:
        memcpy(&constant_features[d.n_known], &features[d.n_known], sizeof(intp_t) * d.n_found)
