/* PTX modules: recognition, lifetime and lookup (see ptx_module.h). */
#include "ptx_module.h"
#include "ptx_inline.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool ptx_image_is_ptx(const char *s)
{
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            if (!e)
                return false;
            p = e + 2;
        } else {
            break;
        }
    }
    if (!strncmp(p, ".version", 8))
        return true;
    /* Searching the whole image for ".entry" is only safe in text, which
     * CUDA requires to end with a NUL; a binary image (a fatbin, whose size
     * is not known here) may have none. */
    for (size_t i = 0; i < 256 && s[i]; i++)
        if (!isprint((unsigned char)s[i]) && !isspace((unsigned char)s[i]))
            return false;
    return strstr(p, ".entry") != NULL;
}

void ptx_module_free(ptx_module *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nkernels; i++) {
        ptx_kernel *k = &m->kernels[i];
        free(k->name);
        for (unsigned j = 0; j < k->nparams; j++)
            free(k->param_names[j]);
        free(k->param_names);
        free(k->param_sizes);
        free(k->param_aligns);
        free(k->code);
        ptx_kernel_free_calls(k);
    }
    free(m->kernels);
    for (size_t i = 0; i < m->nvars; i++)
        free(m->vars[i].name);
    free(m->vars);
    free(m->data);
    free(m);
}

const ptx_kernel *ptx_module_kernel(const ptx_module *m, const char *name)
{
    for (size_t i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].name, name))
            return &m->kernels[i];
    return NULL;
}
