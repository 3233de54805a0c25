/**
 * A cap on V8's young generation for a command that is the whole process
 * and keeps what it learns for a long pass (`toolgate replay`: a verdict per
 * distinct call of a month). V8 doubles the young generation whenever
 * what survives its collections adds up to its size, up to 64 MB a
 * semi-space, whatever the live heap needs: loading toolgate's modules took
 * it to 32 MB, and a month's kept verdicts to 128 MB, most of the 300 MB a
 * month's replay peaked at. Held at 1 MB while the modules load and let grow
 * to 16 MB for the pass, the same replay peaked under 185 MB, about as fast
 * (measured on the replay bench, `npm run bench -- --only replay`).
 *
 * The growth factor is V8's flag, read each time the space grows, so it can
 * be set while running (`--max-semi-space-size` is read only at start). It
 * is process-wide: only `runAsProcess`, where the command is the process,
 * holds it (`holdYoungGeneration`); run in-process (the tests), the cap does
 * nothing.
 */
const CAP_BYTES = 16 * 1024 * 1024;
/** How many checks one look at the heap's spaces is worth (each look allocates a list of them). */
const CHECK_EVERY = 64;
/** V8's default, what the factor is put back to. */
const DEFAULT_GROWTH_FACTOR = 2;

let held = false;

function setGrowthFactor(factor: number): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(`--semi-space-growth-factor=${factor}`);
}

/**
 * Keeps the young generation as it is (1 MB) from now on, until a cap lets
 * it grow: called before a command that caps it is loaded.
 *
 * @example
 * if (argv[0] === 'replay') holdYoungGeneration();
 */
export function holdYoungGeneration(): void {
  held = true;
  setGrowthFactor(1);
}

export interface YoungGenerationCap {
  /** Called often (once per call read): now and then looks at the young generation, letting it grow to the cap and no further. */
  check(): void;
  /** Puts V8's growth back as it was. */
  release(): void;
}

/**
 * @example
 * const cap = capYoungGeneration();
 * try { for (const item of items) { cap.check(); handle(item); } } finally { cap.release(); }
 */
export function capYoungGeneration(): YoungGenerationCap {
  if (!held) return { check() {}, release() {} };
  const v8 = process.getBuiltinModule('node:v8');
  let checks = 0;
  let growing = false;
  let capped = false;
  return {
    check() {
      if (capped || ++checks % CHECK_EVERY !== 0) return;
      const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
      if (young === undefined) return;
      if (young.space_size < CAP_BYTES) {
        if (!growing) setGrowthFactor(DEFAULT_GROWTH_FACTOR);
        growing = true;
        return;
      }
      setGrowthFactor(1);
      capped = true;
    },
    release() {
      setGrowthFactor(DEFAULT_GROWTH_FACTOR);
      held = false;
    },
  };
}
