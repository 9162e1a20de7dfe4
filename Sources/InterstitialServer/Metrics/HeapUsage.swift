import CHeapUsage

/// The bytes the process's allocator holds in use (glibc's `mallinfo2`: chunks in use plus mmapped
/// blocks), which, unlike the resident set size, leaves out memory freed but kept by the allocator;
/// nil where it cannot be known (no glibc, or glibc before 2.33).
enum HeapUsage {
    /// The bytes in use now, or nil where it cannot be known.
    static func bytesInUse() -> Int? {
        let bytes = hlsi_heap_bytes_in_use()
        return bytes == 0 ? nil : Int(bytes)
    }
}
