/*
 * The object kinds, in one list. Everything that differs per kind -- the
 * type tag of its ids, its name in messages, its record's size, how its
 * native object is released, the order in which a context releases its
 * children, its leak counts and its JSON -- is generated from this list
 * (the enum in handle.h, the table in kinds.c, the declarations below).
 *
 *   X(KIND, name, record type, release rank)
 *
 * A context releases its children in increasing rank: kernels before their
 * modules; modules, events and streams before the memory their pending work
 * may still reference. The order of the list is the order of the type tags
 * in ids (1, 2, ...): append, never reorder.
 */
#ifndef GPUGUARD_KINDS_H
#define GPUGUARD_KINDS_H

#define GG__KINDS(X)                     \
    X(CONTEXT, context, gg__context, 5)  \
    X(STREAM, stream, gg__stream, 3)     \
    X(EVENT, event, gg__event, 2)        \
    X(BUFFER, buffer, gg__buffer, 4)     \
    X(MODULE, module, gg__module, 1)     \
    X(KERNEL, kernel, gg__kernel, 0)

#endif /* GPUGUARD_KINDS_H */
