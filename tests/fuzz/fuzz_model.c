/* libFuzzer harness: the model-based attribution tester (tests/model) on
 * programs decoded from the input. Byte 0 picks the timeline mode (bit 0:
 * off); every 8 bytes after it decode to one valid step (model_decode), so
 * any input is a program. The program runs against gpuguard over the
 * simulated driver (not fast mode: kernels run, fault, hang and time out),
 * and the referee checks gpuguard's culprits and GG_OK synchronizes against
 * the simulator's ground truth. A finding prints the program as a script
 * (replayable with model_runner --script) and traps. Declared run times
 * are capped per input (model_decode) so that one runs well under a
 * second; fork steps are skipped in the fuzzer's process. */
#include "fuzz_support.h"

#include "model/model.h"

static model_env env;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    env = (model_env){ .backend = "sim", .library = GG_FUZZ_SIM_CUDA, .kernels_path = MODEL_KERNELS,
                       .in_fuzzer = true };
    if (!model_process_setup(&env)) {
        fprintf(stderr, "fuzz_model: cannot set up the simulator\n");
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    env.timeline = (data[0] & 1) ? GG_TIMELINE_OFF : GG_TIMELINE_ON;
    model_program p;
    model_decode(data + 1, size - 1, &p);
    unsigned failures = model_run(&env, &p, env.timeline == GG_TIMELINE_OFF ? "fuzz, timeline off" : "fuzz, timeline on");
    if (failures != 0) {
        char *script = model_print(&p);
        fprintf(stderr, "fuzz_model: %u check failure(s), timeline %s; the program:\n%s", failures,
                env.timeline == GG_TIMELINE_OFF ? "off" : "on", script);
        free(script);
        __builtin_trap();
    }
    model_program_free(&p);
    return 0;
}
