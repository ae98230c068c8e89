# Types for the compiled build of table.py: declarations only (see state.pxd); the fields the
# rules read are its base's (actors.pxd).
from sim.rules cimport actors


cdef class Table(actors.Table):
    cdef public object despair_again, ticking
