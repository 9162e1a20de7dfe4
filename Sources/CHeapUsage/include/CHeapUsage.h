#ifndef HLSI_CHEAPUSAGE_H
#define HLSI_CHEAPUSAGE_H

#include <stddef.h>

/// The bytes the C allocator holds in use (glibc's mallinfo2: in-use chunks plus mmapped blocks);
/// 0 where it cannot be known (no glibc, or glibc before 2.33).
size_t hlsi_heap_bytes_in_use(void);

#endif
