/**
 * Ctrl-C (SIGINT) ends a command at once with exit 130, as shells expect of a program a person interrupted. What a
 * command must say or tidy first (a spinner to stop, a partial download to mention) registers here while it runs.
 */
const hooks = new Set<() => void>();

/** Runs `hook` if the person interrupts before the returned function is called. */
export function onCancel(hook: () => void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Installs the one SIGINT handler: the hooks, then `cancelled` (which says so and exits 130). */
export function listenForCancel(cancelled: () => void): void {
  process.once("SIGINT", () => {
    for (const hook of hooks) hook();
    cancelled();
  });
}
