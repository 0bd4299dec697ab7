#ifndef TOKENCTL_CMALLOC_SHIM_H
#define TOKENCTL_CMALLOC_SHIM_H

// glibc's allocator tuning (mallopt), which the Glibc module leaves out.
#include <malloc.h>

#endif
