/*
 * The stream, event and module calls that the CUDA and HIP faces share,
 * over a face descriptor that holds what the faces do differently: when a
 * call may go on (HIP initialises on first use, CUDA wants cuInit), which
 * context is current, which stream handles mean the null stream, and how
 * much the details say. Handles come in as registry handles; each call
 * returns the core status for the face to number, and writes an out handle
 * only on success.
 */
#ifndef GG_SIM_FACE_OBJECTS_H
#define GG_SIM_FACE_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_core.h"

typedef struct sim_face {
    sim_status (*ready)(void);           /* may a call go on (initialised) */
    sim_status (*current)(sim_ctx **c);  /* ready + current context, retained, any health */
    sim_status (*enter)(sim_ctx **c);    /* current, and the context is healthy */
    bool (*is_null_stream)(uint64_t h);  /* h means a context's null stream */
    /* NULL, or: h names the calling thread's per-thread default stream (in
     * this call); per_thread_stream then gives that stream of c, retained. */
    bool (*is_per_thread_stream)(uint64_t h);
    sim_status (*per_thread_stream)(sim_ctx *c, sim_stream **out);
    bool by_device;                      /* details name devices and explain lookup misses */
} sim_face;

/* The face's error code for a core status (CUresult, hipError_t), for the
 * controls that report a status (the ground truth's errors). Each face
 * library defines it. */
int sim_face_error_code(sim_status st);

/* ---- streams ------------------------------------------------------------ */

/* The stream h of context c, retained: the calling thread's per-thread
 * default stream of c for a handle the face says names it, c's null stream
 * for another null-stream handle, else a live stream of c (INVALID_HANDLE
 * if it is not). */
sim_status sim_face_stream_of(const sim_face *f, uint64_t h, sim_ctx *c, sim_stream **out);
/* A stream of the current context, if valid (else INVALID_VALUE). */
sim_status sim_face_stream_create(const sim_face *f, bool valid, unsigned int flags,
                                  uint64_t *out);
sim_status sim_face_stream_destroy(const sim_face *f, uint64_t h);
sim_status sim_face_stream_query(const sim_face *f, uint64_t h);
sim_status sim_face_stream_sync(const sim_face *f, uint64_t h);
sim_status sim_face_stream_wait_event(const sim_face *f, uint64_t hs, uint64_t he,
                                      unsigned int flags);

/* ---- events ------------------------------------------------------------- */

/* An event of the current context, if valid (else INVALID_VALUE). */
sim_status sim_face_event_create(const sim_face *f, bool valid, unsigned int flags,
                                 uint64_t *out);
sim_status sim_face_event_destroy(const sim_face *f, uint64_t h);
/* Records on stream hs of the event's context (null stream: that context's). */
sim_status sim_face_event_record(const sim_face *f, uint64_t he, uint64_t hs);
sim_status sim_face_event_query(const sim_face *f, uint64_t h);
sim_status sim_face_event_sync(const sim_face *f, uint64_t h);
sim_status sim_face_event_elapsed(const sim_face *f, float *ms, uint64_t ha, uint64_t hb);

/* ---- modules and launches ----------------------------------------------- */

/* Loads a module into the current context from a path or an image, if
 * valid (else INVALID_VALUE). jit_max_registers: CU_JIT_MAX_REGISTERS of
 * an image's load (0: none; a path's load takes none), see
 * sim_module_load_data. */
sim_status sim_face_module_load(const sim_face *f, bool valid, const void *what, bool is_path,
                                unsigned jit_max_registers, uint64_t *out);
sim_status sim_face_module_unload(const sim_face *f, uint64_t h);
/* Variable name (.global or .const) of PTX module h: its device address
 * and size, each written where its pointer is non-NULL (CUDA lets either
 * be NULL). INVALID_VALUE for a NULL name; NOT_FOUND for an unknown one. */
sim_status sim_face_module_global(const sim_face *f, uint64_t h, const char *name,
                                  uint64_t *dptr, size_t *bytes);
/* Kernel name of module h, if out_ok and name (else INVALID_VALUE). */
sim_status sim_face_module_function(const sim_face *f, uint64_t h, bool out_ok,
                                    const char *name, uint64_t *out);
/* Queues a launch of fn on s. */
sim_status sim_face_launch(sim_stream *s, sim_function *fn, const unsigned int grid[3],
                           const unsigned int block[3], unsigned int shared_bytes,
                           void **params);

#endif /* GG_SIM_FACE_OBJECTS_H */
