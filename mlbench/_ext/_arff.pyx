# The data section of an ARFF file, tokenized and converted in one pass over the raw bytes.
#
# Why Cython: liac-arff runs a regular expression and a Python conversion per value; a benchmark
# file holds millions of values.  Here one nogil loop walks the bytes once, converts numbers
# (an exact fast path, strtod otherwise), looks nominal values up in a flat table, and writes
# straight into a preallocated dense buffer or COO triplets.  The header (a few thousand lines at
# most) is parsed in Python (mlbench.data.arff).
#
# Semantics follow liac-arff (the reference the tests compare against):
#   - blank lines and lines starting with '%' are skipped;
#   - a row is dense (comma separated) or sparse ('{index value, ...}', unlisted values are 0,
#     which for a nominal attribute is the index of its first declared value);
#   - '?' and the empty field are missing (NaN);
#   - values may be quoted with ' or " and use backslash escapes;
#   - INTEGER attributes are truncated toward zero (liac-arff's int(float(x)));
#   - nominal values become their index in the declared list;
#   - STRING attributes are not converted here: their byte spans are returned for Python to decode.
from libc.stdlib cimport strtod, malloc, free
from libc.string cimport memcmp, memchr
from libc.math cimport INFINITY, NAN, trunc

import numpy as np
cimport numpy as cnp

from mlbench._ext._typedefs cimport float64_t, int64_t, intp_t

cnp.import_array()

# attribute kinds (mlbench.data.arff uses the same codes)
cdef enum:
    K_REAL = 0
    K_INTEGER = 1
    K_NOMINAL = 2
    K_STRING = 3

# error codes reported back to Python with the line number
cdef enum:
    E_OK = 0
    E_FIELDS = 1        # wrong number of fields in a dense row
    E_NUMBER = 2        # a numeric value that does not parse
    E_NOMINAL = 3       # a value not in the nominal attribute's declared list
    E_QUOTE = 4         # an unterminated quoted value
    E_SPARSE = 5        # a malformed sparse entry or index out of range
    E_ESCAPE = 6        # an unsupported escape sequence
    E_STRING_SPARSE = 7 # a string attribute inside a sparse row (not supported)
    E_OVERFLOW = 8      # more values than the preallocated capacity (cannot happen with counts)
    E_JUNK = 9          # text after a closing quote, or after the '}' closing a sparse row
    E_ORDER = 10        # a sparse index not greater than the previous one (duplicated or unsorted)
    E_RANGE = 11        # a sparse index beyond the last attribute
    E_NO_VALUE = 12     # a sparse index with no value after it ('{3 1,7 }')

ERRORS = {
    E_FIELDS: "expected {expected} values, found {found}",
    E_NUMBER: "attribute #{attr}: value is not a number",
    E_NOMINAL: "attribute #{attr}: value not in its declared nominal list",
    E_QUOTE: "unterminated quoted value",
    E_SPARSE: "malformed sparse entry (expected 'index value')",
    E_ESCAPE: "unsupported escape sequence in a quoted value",
    E_STRING_SPARSE: "string attribute #{attr} in a sparse row is not supported",
    E_OVERFLOW: "internal capacity exceeded",
    E_JUNK: "unexpected text after the value",
    E_ORDER: "sparse index not greater than the previous one (duplicated or unsorted)",
    E_RANGE: "sparse index out of range (the file declares {expected} attributes)",
    E_NO_VALUE: "sparse entry has an index and no value (expected 'index value')",
}


# Exact powers of ten representable in a double (10**22 is the largest).
cdef double[23] POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                         1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]


cdef inline bint _fast_float(const char* s, intp_t n, float64_t* out) noexcept nogil:
    """Decimal s[0:n] -> double when it is exact to do so without strtod (Clinger's fast path).

    Why: strtod dominates the run time on dense files.  With at most 15 significant digits the
    mantissa m is exact in a double, and for |e| <= 22 so is 10**e; one IEEE multiply or divide of
    two exact values is correctly rounded, i.e. the same double as strtod / Python's float().
    Anything else (more digits, large exponents, inf, nan, hex) returns False for strtod.
    """
    cdef intp_t i = 0
    cdef bint neg = False, digits = False
    cdef unsigned long long m = 0
    cdef int nsig = 0, e = 0, ex = 0, exdig = 0
    cdef bint exneg = False
    if i < n and (s[i] == c'-' or s[i] == c'+'):
        neg = s[i] == c'-'
        i += 1
    while i < n and s[i] >= c'0' and s[i] <= c'9':
        digits = True
        if m or s[i] != c'0':
            nsig += 1
            if nsig > 15:
                return False
            m = m * 10 + <unsigned long long>(s[i] - c'0')
        i += 1
    if i < n and s[i] == c'.':
        i += 1
        while i < n and s[i] >= c'0' and s[i] <= c'9':
            digits = True
            if m or s[i] != c'0':
                nsig += 1
                if nsig > 15:
                    return False
                m = m * 10 + <unsigned long long>(s[i] - c'0')
            e -= 1
            i += 1
    if not digits:
        return False
    if i < n and (s[i] == c'e' or s[i] == c'E'):
        i += 1
        if i < n and (s[i] == c'-' or s[i] == c'+'):
            exneg = s[i] == c'-'
            i += 1
        while i < n and s[i] >= c'0' and s[i] <= c'9':
            ex = ex * 10 + (s[i] - c'0')
            exdig += 1
            if exdig > 4:
                return False
            i += 1
        if exdig == 0:
            return False
        e += -ex if exneg else ex
    if i != n:
        return False
    if m == 0:
        out[0] = -0.0 if neg else 0.0
        return True
    if 0 <= e <= 22:
        out[0] = <double>m * POW10[e]
    elif -22 <= e < 0:
        out[0] = <double>m / POW10[-e]
    else:
        return False
    if neg:
        out[0] = -out[0]
    return True


cdef inline bint _is_digit(char c) noexcept nogil:
    return c >= c'0' and c <= c'9'


cdef inline bint _lower_is(const char* s, intp_t n, const char* word, intp_t m) noexcept nogil:
    """s[0:n] equals the lower-case ASCII word[0:m], ignoring case."""
    cdef intp_t i
    if n != m:
        return False
    for i in range(n):
        if (s[i] | 0x20) != word[i]:
            return False
    return True


cdef inline bint _strict_number(const char* s, intp_t n) noexcept nogil:
    """s[0:n] is ``[+-]?(d+[.d*]|.d+)([eE][+-]?d+)?`` or a signed nan / inf / infinity.

    Why: strtod (the slow path) also takes hexadecimal (``0x10``), ``nan(chars)`` and
    locale-dependent forms, which WEKA and liac-arff reject; it is only given tokens that pass here.
    """
    cdef intp_t i = 0, d = 0
    if i < n and (s[i] == c'-' or s[i] == c'+'):
        i += 1
    if _lower_is(s + i, n - i, b"nan", 3) or _lower_is(s + i, n - i, b"inf", 3) or \
            _lower_is(s + i, n - i, b"infinity", 8):
        return True
    while i < n and _is_digit(s[i]):
        i += 1
        d += 1
    if i < n and s[i] == c'.':
        i += 1
        while i < n and _is_digit(s[i]):
            i += 1
            d += 1
    if d == 0:
        return False
    if i < n and (s[i] == c'e' or s[i] == c'E'):
        i += 1
        if i < n and (s[i] == c'-' or s[i] == c'+'):
            i += 1
        d = 0
        while i < n and _is_digit(s[i]):
            i += 1
            d += 1
        if d == 0:
            return False
    return i == n


cdef inline bint _is_space(char c) noexcept nogil:
    return c == b' ' or c == b'\t' or c == b'\r' or c == b'\n' or c == b'\f' or c == b'\v'


cdef struct Ctx:
    const char* buf
    intp_t n
    # attributes
    intp_t n_attr
    const signed char* kinds
    const int64_t* nom_first     # first entry of attribute j in the value table
    const int64_t* nom_count     # number of declared values of attribute j
    const int64_t* val_off       # value k: byte offset in the value blob
    const int64_t* val_len       # value k: byte length
    const char* blob
    const int64_t* str_slot      # attribute j -> string column slot (or -1)
    intp_t n_str
    # scratch for unquoting one value
    char* scratch
    # outputs
    bint sparse
    float64_t* dense             # (cap_rows, n_attr) C order
    int64_t* coo_row
    int64_t* coo_col
    float64_t* coo_val
    intp_t coo_n
    intp_t coo_cap
    int64_t* spans               # (cap_rows, n_str, 2) start, end (end < 0: missing)
    # error report
    int err
    intp_t err_attr
    intp_t err_found
    intp_t tok                   # byte offset of the token being read (the error's column)
    intp_t line_start            # byte offset of the current line


cdef inline int _unquote(Ctx* c, intp_t* pos, intp_t end, intp_t* out_len) noexcept nogil:
    """Copy the quoted value starting at buf[pos] (a quote) into scratch, resolving escapes.

    On return pos is just past the closing quote.  Returns an error code.
    """
    cdef char q = c.buf[pos[0]]
    cdef intp_t i = pos[0] + 1
    cdef intp_t k = 0
    cdef int code, ndig
    cdef char ch
    while i < end:
        ch = c.buf[i]
        if ch == b'\\':
            if i + 1 >= end:
                return E_QUOTE
            ch = c.buf[i + 1]
            if ch == b'n':
                c.scratch[k] = b'\n'
            elif ch == b't':
                c.scratch[k] = b'\t'
            elif ch == b'r':
                c.scratch[k] = b'\r'
            elif ch == b'b':
                c.scratch[k] = b'\b'
            elif ch == b'f':
                c.scratch[k] = b'\f'
            elif ch == b'\\' or ch == b'"' or ch == b"'" or ch == b'%':
                c.scratch[k] = ch
            elif ch >= b'0' and ch <= b'9':
                # \ddd octal (liac-arff): up to three digits
                i += 1
                code = 0
                ndig = 0
                while i < end and ndig < 3 and c.buf[i] >= c'0' and c.buf[i] <= c'9':
                    code = code * 8 + (c.buf[i] - c'0')
                    i += 1
                    ndig += 1
                    if ndig > 1 and (c.buf[i - 1] > c'7' or c.buf[i - 2] > c'7'):
                        return E_ESCAPE  # not octal (liac-arff's int(code, 8) rejects it)
                if code > 127:
                    return E_ESCAPE  # would be a non-ASCII character, not one byte
                c.scratch[k] = <char>code
                k += 1
                continue
            else:
                return E_ESCAPE
            k += 1
            i += 2
            continue
        if ch == q:
            c.scratch[k] = 0
            out_len[0] = k
            pos[0] = i + 1
            return E_OK
        c.scratch[k] = ch
        k += 1
        i += 1
    return E_QUOTE


cdef inline int _convert(Ctx* c, intp_t j, const char* s, intp_t length, bint quoted,
                         float64_t* out) noexcept nogil:
    """Convert one value of attribute j (bytes s[0:length]) to a float; NaN for missing."""
    cdef int kind = c.kinds[j]
    cdef char* endp
    cdef intp_t k, first, cnt
    cdef char saved
    if not quoted and (length == 0 or (length == 1 and s[0] == b'?')):
        out[0] = NAN
        return E_OK
    if kind == K_REAL or kind == K_INTEGER:
        if length == 0:
            c.err_attr = j
            return E_NUMBER
        if not _fast_float(s, length, out):
            # strtod stops at the first byte that cannot extend the number; the byte after the
            # value is a delimiter (',', '}', space, newline or the terminating NUL), never a digit.
            if not _strict_number(s, length):
                c.err_attr = j
                return E_NUMBER
            out[0] = strtod(s, &endp)
            if endp != s + length:
                c.err_attr = j
                return E_NUMBER
        if kind == K_INTEGER:
            if out[0] != out[0] or out[0] == INFINITY or out[0] == -INFINITY:
                c.err_attr = j  # liac-arff's int(float(x)) rejects nan and inf
                return E_NUMBER
            out[0] = trunc(out[0])
        return E_OK
    if kind == K_NOMINAL:
        first = c.nom_first[j]
        cnt = c.nom_count[j]
        for k in range(first, first + cnt):
            if c.val_len[k] == length and memcmp(c.blob + c.val_off[k], s, length) == 0:
                out[0] = <float64_t>(k - first)
                return E_OK
        c.err_attr = j
        return E_NOMINAL
    out[0] = NAN
    return E_OK


cdef inline int _value(Ctx* c, intp_t* pos, intp_t end, intp_t j, intp_t row,
                       float64_t* out) noexcept nogil:
    """Read one value at buf[pos] (leading blanks skipped) up to ',' / '}' / end of line.

    Leaves pos on the delimiter.  Writes the converted value to out.
    """
    cdef intp_t p = pos[0]
    cdef intp_t start, stop, length = 0
    cdef int e
    cdef bint quoted = False
    cdef intp_t slot
    while p < end and _is_space(c.buf[p]):
        p += 1
    start = p
    c.tok = p
    if p < end and (c.buf[p] == b"'" or c.buf[p] == b'"'):
        quoted = True
        e = _unquote(c, &p, end, &length)
        if e != E_OK:
            return e
        stop = p
        while p < end and _is_space(c.buf[p]):
            p += 1
        if p < end and c.buf[p] != b',' and c.buf[p] != b'}':
            c.tok = p
            return E_JUNK
    else:
        while p < end and c.buf[p] != b',' and c.buf[p] != b'}':
            p += 1
        stop = p
        while stop > start and _is_space(c.buf[stop - 1]):
            stop -= 1
    pos[0] = p
    if c.kinds[j] == K_STRING:
        slot = c.str_slot[j]
        if not quoted and (stop == start or (stop - start == 1 and c.buf[start] == b'?')):
            c.spans[(row * c.n_str + slot) * 2] = start
            c.spans[(row * c.n_str + slot) * 2 + 1] = -1
        else:
            c.spans[(row * c.n_str + slot) * 2] = start
            c.spans[(row * c.n_str + slot) * 2 + 1] = stop
        out[0] = NAN
        return E_OK
    if quoted:
        return _convert(c, j, c.scratch, length, True, out)
    return _convert(c, j, c.buf + start, stop - start, False, out)


cdef inline int _emit(Ctx* c, intp_t row, intp_t j, float64_t v) noexcept nogil:
    if not c.sparse:
        c.dense[row * c.n_attr + j] = v
        return E_OK
    if v == 0.0:
        return E_OK
    if c.coo_n >= c.coo_cap:
        return E_OVERFLOW
    c.coo_row[c.coo_n] = row
    c.coo_col[c.coo_n] = j
    c.coo_val[c.coo_n] = v
    c.coo_n += 1
    return E_OK


cdef int _dense_row(Ctx* c, intp_t p, intp_t end, intp_t row) noexcept nogil:
    cdef intp_t j = 0
    cdef float64_t v
    cdef int e
    while True:
        if j >= c.n_attr:
            # count the surplus fields for the message
            c.tok = p
            c.err_found = j + 1
            while p < end:
                if c.buf[p] == b',':
                    c.err_found += 1
                p += 1
            return E_FIELDS
        e = _value(c, &p, end, j, row, &v)
        if e != E_OK:
            return e
        e = _emit(c, row, j, v)
        if e != E_OK:
            return e
        j += 1
        if p >= end:
            break
        if c.buf[p] == b'}':
            c.err_found = j
            c.tok = p
            return E_FIELDS
        p += 1  # skip ','
    if j != c.n_attr:
        c.err_found = j
        c.tok = p
        return E_FIELDS
    return E_OK


cdef int _sparse_row(Ctx* c, intp_t p, intp_t end, intp_t row) noexcept nogil:
    """One ``{index value, ...}`` row; ``buf[end - 1]`` is its closing '}' (checked by _parse).

    Strict like WEKA: indices strictly increasing (no duplicates), in range, each followed by a
    value, and nothing after the first '}'.  The index is accumulated with a cap (it stops growing past n_attr), so no
    digit string can overflow it into range.
    """
    cdef intp_t j, q, last = -1
    cdef float64_t v
    cdef int e
    cdef bint after_comma = False
    p += 1  # past '{'
    while True:
        while p < end and _is_space(c.buf[p]):
            p += 1
        c.tok = p
        if p >= end:
            return E_SPARSE
        if c.buf[p] == b'}':
            if after_comma:
                return E_SPARSE  # '{0 1,}': an entry is missing after the comma
            if p != end - 1:
                c.tok = p + 1
                return E_JUNK
            return E_OK
        q = p
        j = 0
        while p < end and c.buf[p] >= b'0' and c.buf[p] <= b'9':
            if j <= c.n_attr:
                j = j * 10 + (c.buf[p] - c'0')
            p += 1
        if p == q or p >= end or not _is_space(c.buf[p]):
            return E_SPARSE
        while p < end and _is_space(c.buf[p]):
            p += 1
        if p >= end or c.buf[p] == b',' or c.buf[p] == b'}':
            # '{3 1,7 }': WEKA and liac-arff refuse it; an empty value is not a missing one here
            c.tok = q
            return E_NO_VALUE
        if j >= c.n_attr:
            return E_RANGE
        if j <= last:
            return E_ORDER
        last = j
        if c.kinds[j] == K_STRING:
            c.err_attr = j
            return E_STRING_SPARSE
        e = _value(c, &p, end, j, row, &v)
        if e != E_OK:
            return e
        if c.sparse:
            e = _emit(c, row, j, v)
            if e != E_OK:
                return e
        else:
            c.dense[row * c.n_attr + j] = v
        if p >= end:
            return E_SPARSE
        after_comma = c.buf[p] == b','
        if after_comma:
            p += 1


cdef int _parse(Ctx* c, intp_t pos, intp_t* n_rows, intp_t* line_no) noexcept nogil:
    cdef intp_t end, s, e_
    cdef const char* nl
    cdef int err
    cdef intp_t row = 0
    while pos < c.n:
        nl = <const char*>memchr(c.buf + pos, b'\n', c.n - pos)
        end = (nl - c.buf) if nl != NULL else c.n
        line_no[0] += 1
        c.line_start = pos
        s = pos
        e_ = end
        pos = end + 1
        while s < e_ and _is_space(c.buf[s]):
            s += 1
        while e_ > s and _is_space(c.buf[e_ - 1]):
            e_ -= 1
        if s == e_ or c.buf[s] == b'%':
            continue
        c.tok = s
        if c.buf[s] == b'{':
            if c.buf[e_ - 1] != b'}':
                return E_SPARSE
            err = _sparse_row(c, s, e_, row)
        else:
            err = _dense_row(c, s, e_, row)
        if err != E_OK:
            return err
        row += 1
    n_rows[0] = row
    return E_OK


def parse_data(const unsigned char[::1] buf not None, intp_t start, intp_t first_line,
               const signed char[::1] kinds not None, const int64_t[::1] nom_first not None,
               const int64_t[::1] nom_count not None, const int64_t[::1] val_off not None,
               const int64_t[::1] val_len not None, bytes blob not None, bint sparse,
               intp_t cap_rows, intp_t cap_values):
    """Parse the data section ``buf[start:]`` (which must end with a NUL byte past its length).

    ``first_line`` is the 1-based line number of ``buf[start]`` minus one.  Returns
    ``(values, n_rows, spans)`` where ``values`` is a dense (cap_rows, n_attr) array when not
    ``sparse``, else a tuple (rows, cols, vals) of COO triplets; ``spans`` holds the byte span
    of every string value (n_rows, n_string, 2), end -1 for missing.
    Raises ValueError("LINE\\tCOLUMN\\tOFFSET\\tmessage"), COLUMN 1-based in bytes.
    """
    cdef Ctx c
    cdef intp_t n_attr = kinds.shape[0]
    cdef intp_t j, n_rows = 0, line_no = first_line
    cdef int err
    cdef cnp.ndarray[float64_t, ndim=2] dense
    cdef cnp.ndarray[int64_t, ndim=1] rows, cols
    cdef cnp.ndarray[float64_t, ndim=1] vals
    cdef cnp.ndarray[int64_t, ndim=1] str_slot = np.full(n_attr, -1, dtype=np.int64)
    cdef intp_t n_str = 0
    for j in range(n_attr):
        if kinds[j] == K_STRING:
            str_slot[j] = n_str
            n_str += 1
    cdef cnp.ndarray[int64_t, ndim=3] spans = np.full((cap_rows if n_str else 0, n_str, 2), -1,
                                                      dtype=np.int64)

    c.buf = <const char*>&buf[0]
    c.n = buf.shape[0] - 1  # the trailing NUL is not data
    c.n_attr = n_attr
    c.kinds = &kinds[0] if n_attr else NULL
    c.nom_first = &nom_first[0] if n_attr else NULL
    c.nom_count = &nom_count[0] if n_attr else NULL
    c.val_off = &val_off[0] if val_off.shape[0] else NULL
    c.val_len = &val_len[0] if val_len.shape[0] else NULL
    c.blob = blob
    c.str_slot = <const int64_t*>str_slot.data
    c.n_str = n_str
    c.spans = <int64_t*>spans.data
    c.sparse = sparse
    c.err = 0
    c.err_attr = -1
    c.err_found = 0
    c.tok = start
    c.line_start = start
    c.coo_n = 0
    if sparse:
        dense = np.zeros((0, n_attr), dtype=np.float64)
        rows = np.empty(cap_values, dtype=np.int64)
        cols = np.empty(cap_values, dtype=np.int64)
        vals = np.empty(cap_values, dtype=np.float64)
        c.coo_row = <int64_t*>rows.data
        c.coo_col = <int64_t*>cols.data
        c.coo_val = <float64_t*>vals.data
        c.coo_cap = cap_values
        c.dense = NULL
    else:
        dense = np.zeros((cap_rows, n_attr), dtype=np.float64)
        c.dense = <float64_t*>dense.data
        c.coo_cap = 0
    c.scratch = <char*>malloc(c.n - start + 2)
    if c.scratch == NULL:
        raise MemoryError()
    try:
        with nogil:
            err = _parse(&c, start, &n_rows, &line_no)
    finally:
        free(c.scratch)
    if err != E_OK:
        msg = ERRORS[err].format(expected=n_attr, found=c.err_found, attr=c.err_attr)
        raise ValueError(f"{line_no}\t{c.tok - c.line_start + 1}\t{c.tok}\t{msg}")
    if n_str:
        spans = spans[:n_rows]
    if sparse:
        return (rows[:c.coo_n], cols[:c.coo_n], vals[:c.coo_n]), n_rows, spans
    return dense[:n_rows], n_rows, spans
