/* libFuzzer harness: the model-based attribution tester (tests/model) on
 * programs decoded from the input. Byte 0 picks the timeline mode (bit 0:
 * off; bits 1-2 the stride when on: model_timeline_from_byte); every 8 bytes after it decode to one valid step (model_decode), so
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
    model_timeline_from_byte(data[0], &env);
    model_program p;
    model_decode(data + 1, size - 1, &p);
    char label[64];
    snprintf(label, sizeof label, "fuzz, timeline %s, stride %u", env.timeline == GG_TIMELINE_OFF ? "off" : "on",
             env.timeline_stride ? env.timeline_stride : 1);
    unsigned failures = model_run(&env, &p, label);
    if (failures != 0) {
        char *script = model_print(&p);
        fprintf(stderr, "fuzz_model: %u check failure(s), %s; the program:\n%s", failures, label + 6, script);
        free(script);
        __builtin_trap();
    }
    model_program_free(&p);
    return 0;
}
