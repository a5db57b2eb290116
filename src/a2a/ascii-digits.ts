/**
 * The decimal number `count` ASCII digits of `text` spell from `at`, or -1 if one is not a digit:
 * for timestamps read field by field on hot paths (store columns, the gRPC encoder), where a
 * regular expression or Date.parse would cost more than the rest of the read.
 */
export function asciiDigits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
