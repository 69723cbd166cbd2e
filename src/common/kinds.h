/*
 * The object kinds, in one list. Everything that differs per kind -- the
 * type tag of its ids, its name in messages, its record's size, the part of
 * its record that survives recycling, how its record is prepared and its
 * native object released, the order in which a context releases its
 * children, its leak counts and its JSON -- is generated from this list
 * (the enum in handle.h, the names in handle.c, the table in object.c, the
 * declarations in object.h). Nothing per kind is written by hand
 * elsewhere.
 *
 *   X(KIND, name, record type, release rank, kept from, prepared)
 *
 * kept from: the offset in the record from which its bytes survive
 * recycling (a context's lock, object.h); sizeof the record for none.
 * prepared: 1 when the kind's file defines gg__<name>_init_once and
 * gg__<name>_fini (freshly allocated memory prepared once, undone when
 * gg_shutdown frees the pools), 0 when nothing is to be done.
 *
 * A context releases its children in increasing rank: kernels before their
 * modules; modules, events and streams before the memory their pending work
 * may still reference. The order of the list is the order of the type tags
 * in ids (1, 2, ...): append, never reorder.
 */
#ifndef GPUGUARD_KINDS_H
#define GPUGUARD_KINDS_H

#define GG__KINDS(X)                                                     \
    X(CONTEXT, context, gg__context, 5, offsetof(gg__context, lock), 1)  \
    X(STREAM, stream, gg__stream, 3, sizeof(gg__stream), 0)              \
    X(EVENT, event, gg__event, 2, sizeof(gg__event), 0)                  \
    X(BUFFER, buffer, gg__buffer, 4, sizeof(gg__buffer), 0)              \
    X(MODULE, module, gg__module, 1, sizeof(gg__module), 0)              \
    X(KERNEL, kernel, gg__kernel, 0, sizeof(gg__kernel), 0)

#endif /* GPUGUARD_KINDS_H */
