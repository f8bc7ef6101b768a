/**
 * A device's buffer pool: PGlite lays it out in memory as it opens, so 128MB (its default) cost
 * about 400 ms of every open and as much memory on a phone; a household's working set fits in
 * 32MB (bench:sync's 50,000-transaction bootstrap was no slower with it).
 */
export const DEVICE_SHARED_BUFFERS = '32MB'
