/**
 * Whether `single` and the concatenation of `first` and `second` are at most one edit apart
 * (insertion, deletion, substitution or swap of two adjacent letters). A merged pair (`BINLADEN` /
 * `BIN LADIN`) only counts when it is this close: like a token pair, it must be nearly identical to
 * be evidence, and the index can then bound merges with a linear scan instead of Jaro-Winkler.
 */
export function withinOneEdit(single: Int32Array, first: Int32Array, second: Int32Array): boolean {
  const n = single.length;
  const m = first.length + second.length;
  if (n - m > 1 || m - n > 1) return false;
  let i = 0;
  while (i < n && i < m && single[i] === codeAt(first, second, i)) i++;
  if (i === n && i === m) return true;
  if (n === m) {
    // Substitution at i, or a swap of i and i + 1.
    if (tailEqual(single, i + 1, first, second, i + 1, n)) return true;
    return (
      i + 1 < n &&
      single[i] === codeAt(first, second, i + 1) &&
      single[i + 1] === codeAt(first, second, i) &&
      tailEqual(single, i + 2, first, second, i + 2, n)
    );
  }
  // One extra letter on the longer side at position i.
  if (n > m) {
    for (let k = i; k < m; k++) if (single[k + 1] !== codeAt(first, second, k)) return false;
    return true;
  }
  for (let k = i; k < n; k++) if (single[k] !== codeAt(first, second, k + 1)) return false;
  return true;
}

/** Code point k of `first` and `second` written together, read without building the joined array. */
function codeAt(first: Int32Array, second: Int32Array, k: number): number {
  return k < first.length ? first[k]! : second[k - first.length]!;
}

function tailEqual(
  s: Int32Array,
  from: number,
  first: Int32Array,
  second: Int32Array,
  otherFrom: number,
  end: number,
): boolean {
  for (let k = 0; from + k < end; k++) if (s[from + k] !== codeAt(first, second, otherFrom + k)) return false;
  return true;
}
