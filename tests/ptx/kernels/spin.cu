// Waits for a flag that never comes: only the watchdog (or a context
// destroy) ends it, through the interpreter's polls of rt->cancelled().
extern "C" __global__ void spin(const volatile int *flag)
{
    while (*flag == 0) {
    }
}
