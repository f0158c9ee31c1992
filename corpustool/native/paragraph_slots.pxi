# The slots of a paragraph class with __slots__ (Paragraph: a slotted dataclass), by offset:
# the walk stores a new paragraph's fields in them (0.24 -> 0.18 ms per dev page for build's
# paragraphs against setting attributes of an instance dict) and learned_features.pyx reads them
# (an attribute read looks the name up in the type first). Included by both .pyx; needs
# PyObject, Py_INCREF (cpython.ref) cimported by the includer.

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member


# the fields in slot order: offsets[k] is SLOT_FIELDS[k]'s
SLOT_FIELDS = ("text", "cls", "cf_class", "heading", "tag", "dom_path", "xpath", "reason", "features", "lang",
               "lang_score", "tokens", "glue", "_words")
cdef enum:
    S_TEXT, S_CLS, S_CF_CLASS, S_HEADING, S_TAG, S_DOM_PATH, S_XPATH, S_REASON, S_FEATURES, N_SLOT_FIELDS = 14
cdef dict SLOT_OFFSETS = {}     # class -> bytes of SLOT_FIELDS' offsets (Py_ssize_t each), or None


cdef object slot_offsets(paragraph_type):
    """The offsets of SLOT_FIELDS in paragraph_type's instances, or None when one is not a slot of
    the class itself (a member descriptor in its own __dict__: what an attribute read finds first)."""
    import types
    offsets = SLOT_OFFSETS.get(paragraph_type, False)
    if offsets is not False:
        return offsets
    cdef Py_ssize_t[N_SLOT_FIELDS] found
    offsets = None
    if type(paragraph_type) is type and "__slots__" in paragraph_type.__dict__:
        for i, name in enumerate(SLOT_FIELDS):
            d = paragraph_type.__dict__.get(name)
            if type(d) is not types.MemberDescriptorType:
                break
            found[i] = (<PyMemberDescrObject*>d).d_member.offset
        else:
            offsets = (<char*>found)[:N_SLOT_FIELDS * sizeof(Py_ssize_t)]
    SLOT_OFFSETS[paragraph_type] = offsets
    return offsets


cdef inline void set_slot(PyObject* obj, Py_ssize_t offset, object value) noexcept:
    """A slot of a new object (NULL until now) takes a reference to value."""
    Py_INCREF(value)
    (<PyObject**>((<char*>obj) + offset))[0] = <PyObject*>value


cdef object missing_slot(object obj, Py_ssize_t k):
    return getattr(obj, SLOT_FIELDS[k])     # (raises the AttributeError of an empty slot)


cdef inline object get_slot(object obj, const Py_ssize_t* offsets, Py_ssize_t k):
    """SLOT_FIELDS[k] of obj, an instance of exactly the class ``offsets`` were taken from; an
    empty slot raises the AttributeError the attribute read raises."""
    cdef PyObject* value = (<PyObject**>((<char*><PyObject*>obj) + offsets[k]))[0]
    if value is NULL:
        return missing_slot(obj, k)
    return <object>value
