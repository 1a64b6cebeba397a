export type Scheduler = (fn: () => void) => void;

/** After the I/O callbacks of the current event-loop turn: events read from one socket read land together. */
export const nextTurn: Scheduler = (fn) => void setImmediate(fn);
