/* The fault gate. Plans (issue "fault injection") are not implemented yet:
 * the gate exists so every driver call already passes through it. */
#include "common/fault.h"

#include <stdio.h>

#include "common/call.h"

atomic_bool gg__fault_plan_loaded;

int gg__fault_gate(struct gg__call *c, gg__op op)
{
    (void)c;
    (void)op;
    return 0;
}

gg_status gg__fault_load_plan(const char *json, char *message, size_t message_size)
{
    (void)json;
    snprintf(message, message_size, "fault plans are not implemented yet in this build");
    return GG_UNSUPPORTED;
}

void gg__fault_clear_plan(void)
{
    atomic_store(&gg__fault_plan_loaded, false);
}
