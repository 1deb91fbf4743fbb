/** The counters of the logs' partitions live beside each log, in this collection. */
export const sequencesOf = (log: string): string => `${log}.sequences`

/**
 * The `_id` of a log entry: its partition, then its number zero-padded, so the `_id` order of one partition's
 * entries is their commit order.
 */
export const sequencedId = (partition: string, seq: number): string => `${partition}:${String(seq).padStart(16, '0')}`
