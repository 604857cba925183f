// Large typed arrays built up and then thrown away (index builders' temporaries, columns growing as rows are read):
// allocated and handed back so they do not stay resident after use.

/**
 * glibc's malloc serves a block under its mmap threshold from the main heap, and raises that threshold (up to
 * 32 MB) each time it unmaps a larger freed block, which every doubling array does; freed heap memory goes
 * back to the system only from the heap's top. Left to that, the builder's temporary arrays end up in the heap
 * under the index's own arrays and stay resident as holes once freed (~70 MB at 300,000 CVEs). A block of more
 * than 32 MB is always mapped on its own and unmapped when freed, and its pages cost memory only once written:
 * a temporary array past 128 KB gets such a block.
 */
const MAPPED_BYTES = 32 * 1024 * 1024 + 4096;
const SMALL_BYTES = 128 * 1024;

export function temporaryBuffer(bytes: number): ArrayBuffer {
  return new ArrayBuffer(bytes < SMALL_BYTES ? bytes : Math.max(bytes, MAPPED_BYTES));
}

/**
 * Gives the array's memory back now rather than at a later garbage collection, which keeps the build's peak
 * down and the memory it leaves behind visible at once. The array (and any other view of its buffer) is empty
 * afterwards.
 */
export function release(array: ArrayBufferView): void {
  (array.buffer as ArrayBuffer).transfer(0);
}
