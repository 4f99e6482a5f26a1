/* g15-exports-malloc.c -- lab exports' grading test for libslub-malloc.so (kept back).
 * Linked with the malloc library (mk/code.mk's rule for tests named -malloc): the same
 * cases as g15-exports-shared.c, whose interface then includes the malloc family, and
 * the program's malloc is the library's. */
#define _GNU_SOURCE
#define G15_MALLOC
#include <malloc.h>
#include "g15-exports-shared.c"
