/* Diagnostics: the leak report and the JSON dump of live objects. */
#ifndef GPUGUARD_REPORT_H
#define GPUGUARD_REPORT_H

/* Logs (warn level) what is still alive: counts by type and creation tags. */
void gg__report_leaks(const char *when);

#endif
