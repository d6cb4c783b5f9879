# Shared C types for every kernel, so the .pyx files agree on widths.
cimport numpy as cnp

ctypedef double float64_t
ctypedef float float32_t
ctypedef Py_ssize_t intp_t
ctypedef int int32_t
ctypedef long long int64_t
ctypedef unsigned char uint8_t
