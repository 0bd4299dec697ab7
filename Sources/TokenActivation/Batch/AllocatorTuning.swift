import CMalloc

/// glibc's allocator settings for a batch, a long run in which many threads allocate
/// and free request-sized buffers, and by default each thread's heap gives freed memory back
/// to the system as soon as its top is free (madvise, then a page fault to take it again,
/// and a TLB flush on every core). Keeping up to 256 MiB free per heap, and serving blocks
/// up to 4 MiB from the heaps, saves that system time at the same peak RSS (its figure:
/// Benchmarks/README.md, Measured shapes).
enum AllocatorTuning {
    static func forLongRun() {
        _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
        _ = mallopt(M_MMAP_THRESHOLD, 4 << 20)
    }
}
