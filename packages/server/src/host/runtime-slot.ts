/**
 * Where an app's server leaves what it started with (database, settings, links) for its pages: Next loads its own
 * copy of the app's modules, so the value travels on `globalThis`, under a key of the app's own.
 */
export function runtimeSlot<Runtime>(name: string): { set: (runtime: Runtime) => void; get: () => Runtime } {
  const key = Symbol.for(`shelf.${name}.runtime`);
  const holder = globalThis as unknown as Record<symbol, Runtime | undefined>;
  return {
    set: (runtime) => {
      holder[key] = runtime;
    },
    get: () => {
      const runtime = holder[key];
      if (!runtime) throw new Error(`The ${name} app runs through its server.ts, which sets up its runtime.`);
      return runtime;
    },
  };
}
