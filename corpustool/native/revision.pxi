# jusText's context-sensitive revision (Algorithm 2.3 of seed 003, with the headings rule) over
# classes as small integers: one source, included by justext_walk.pyx (classic jusText's classes)
# and learned_features.pyx (justext-learned's, from its model). justext_engine.revise is the Python
# twin; the step-by-step reasons are in justext_engine.classify.

cdef enum:
    R_BAD = 0
    R_GOOD = 1
    R_NEARGOOD = 2
    R_SHORT = 3


cdef void revise_classes(const int* cf, int* cls, int* left_gb, int* left_any, const int* heading,
                         const Py_ssize_t* chars, Py_ssize_t n, Py_ssize_t max_distance) noexcept nogil:
    """The final classes in ``cls`` (which holds a copy of the context-free ``cf`` on entry), each
    array of ``n``; ``left_gb`` and ``left_any`` are scratch; ``chars``: each paragraph's length,
    which the headings rule counts."""
    cdef Py_ssize_t i, j, distance
    cdef int c, last_gb, last_any, prev, prev_any
    cdef bint any_short = False, any_neargood = False
    # short paragraphs take their class from the nearest good/bad paragraph on each side (the
    # edges count as bad) and, when those disagree, from a neargood one next to the bad side
    last_gb = last_any = R_BAD
    for i in range(n):
        c = cf[i]
        if c == R_SHORT:
            left_gb[i] = last_gb
            left_any[i] = last_any
            any_short = True
        elif c == R_NEARGOOD:
            last_any = c
        else:
            last_gb = last_any = c
    if any_short:
        last_gb = last_any = R_BAD
        for i in range(n - 1, -1, -1):
            c = cf[i]
            if c == R_SHORT:
                prev = left_gb[i]
                prev_any = left_any[i]
                if prev == R_GOOD and last_gb == R_GOOD:
                    cls[i] = R_GOOD
                elif prev == R_BAD and last_gb == R_BAD:
                    cls[i] = R_BAD
                elif (prev == R_BAD and prev_any == R_NEARGOOD) or (last_gb == R_BAD and last_any == R_NEARGOOD):
                    cls[i] = R_GOOD
                else:
                    cls[i] = R_BAD
            elif c == R_NEARGOOD:
                last_any = c
            else:
                last_gb = last_any = c
    for i in range(n):
        if cls[i] == R_NEARGOOD:
            any_neargood = True
            break
    if any_neargood:
        # neargood ones left to right; left_gb now holds the nearest good/bad class to the right
        last_gb = R_BAD
        for i in range(n - 1, -1, -1):
            c = cls[i]
            left_gb[i] = last_gb
            if c != R_NEARGOOD:
                last_gb = c
        prev = R_BAD
        for i in range(n):
            c = cls[i]
            if c == R_NEARGOOD:
                c = R_BAD if prev == R_BAD and left_gb[i] == R_BAD else R_GOOD
                cls[i] = c
            prev = c
    # a heading bad only by context: good when a good paragraph starts within max_distance characters
    for i in range(n):
        if not (heading[i] and cls[i] == R_BAD and cf[i] != R_BAD):
            continue
        j = i + 1
        distance = 0
        while j < n and distance <= max_distance:
            if cls[j] == R_GOOD:
                cls[i] = R_GOOD
                break
            distance += chars[j]
            j += 1
