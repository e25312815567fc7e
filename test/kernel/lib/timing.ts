// The kernel suites' one clock: how long an attempt waits before it counts as dropped, and how the drop is confirmed.

/**
 * No answer within this time is a DROP candidate (both suites). On a loaded 2-core machine a listener process was
 * seen not to answer within 500 ms (8 of 300 TCP connections, load average 7): a candidate is retried (below).
 */
export const TIMEOUT_MS = 1000;
/** A TCP connection whose handshake completed waits this much longer for its answer: never a drop, only a slow listener. */
export const ANSWER_GRACE_MS = 5000;
/**
 * Every attempt that timed out is sent once more, same source address and port (the same flow: its conntrack entry,
 * if the first packet got one, takes it where the first went), and waits this long. Only a second timeout is a drop.
 */
export const CONFIRM_TIMEOUT_MS = 3 * TIMEOUT_MS;
