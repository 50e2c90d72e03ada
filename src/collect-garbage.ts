import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined;

/**
 * A full garbage collection of the calling thread's heap, for the moment a large structure has
 * just been replaced (a list version's decompressed chunks, the matching thread's index tables).
 * V8 collects when new allocations call for it, which an idle service never makes: with every
 * list loaded, 80-100 MB of such garbage stayed resident after a start until the first screenings
 * came. Node has no API for it; V8's flag gives a new context a `gc` function.
 */
export function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}
