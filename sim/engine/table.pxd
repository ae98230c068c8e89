# Types for the compiled build of table.py: declarations only (see state.pxd).
cdef class Table:
    cdef public object despair_again, despair_disadvantage, log, on_check, rng, round
    cdef public object surprising, t, ticking
