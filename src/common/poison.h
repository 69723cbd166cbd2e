/*
 * A sticky error that reaches the whole process. On CUDA (measured on an
 * H100, driver 580.159.04: docs/DRIVER-FACTS.md, "Sticky errors reach the
 * whole process") a kernel's illegal address, trap or failed assert in one
 * context makes every other context of the process answer the same error,
 * and no context can be made in the process afterwards, whatever is torn
 * down. gpuguard follows: the first such death is the process's poison;
 * every other gg context dies of it at once (GG_PROCESS_POISONED, fail
 * fast, with the first death named), and creating or recovering a context
 * is refused with GG_PROCESS_POISONED. An injected sticky fault poisons the
 * process the same way (the error path a program meets is the real one),
 * though the driver underneath is unharmed. Whether sticky errors reach
 * the process is gg__sticky_process_wide's answer (state.h).
 */
#ifndef GPUGUARD_POISON_H
#define GPUGUARD_POISON_H

#include <stdbool.h>

#include "gpuguard/gpuguard.h"

struct gg__call;
struct gg__context;

/* Called once `dead` has died of a sticky native error (its death record
 * written): when sticky errors are process-wide and the process was not
 * poisoned yet, makes that death the process's poison and marks every
 * other live gg context DEAD with GG_PROCESS_POISONED naming it. Takes the
 * context list's lock and other contexts' locks by trylock only (the
 * caller may hold dead's lock): a context whose lock stays busy is left to
 * find the error at its own next driver call. */
void gg__poison_after_death(struct gg__context *dead);

/* A context whose id was just published: marked DEAD of the poison when
 * the process is poisoned, since the walk of gg__poison_after_death skips
 * unpublished ids. With the fence after the poison's flag and the one
 * here, either the walk sees the id or this sees the flag. Nothing when
 * not poisoned. */
void gg__poison_mark_new(struct gg__context *ctx);

/* Whether the process is poisoned; *cause (may be NULL): the first death. */
bool gg__poisoned(gg_error_info *cause);

/* Fails the call with GG_PROCESS_POISONED, naming the first death, when the
 * process is poisoned (what = "no context can be created", ...); GG_OK
 * otherwise. */
gg_status gg__poison_refuse(struct gg__call *c, const char *what);

/* Forgets the poison (gg_init: a later library's contexts start from the
 * driver's own answers; a really poisoned driver refuses them itself). */
void gg__poison_forget(void);

#endif
