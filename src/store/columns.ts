/** Number columns indexed by slot (the memory store and its text arena keep one value per task), and the time column's parse. */
import { asciiDigits } from '../a2a/ascii-digits.js';

type Column = Uint8Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/**
 * `values`, or a copy doubled as often as needed to hold index `slot` (amortized: one copy per
 * doubling, not per task).
 */
export function withRoom<T extends Column>(values: T, slot: number, make: (size: number) => T): T {
  if (slot < values.length) return values;
  let size = Math.max(1, values.length);
  while (size <= slot) size *= 2;
  const grown = make(size);
  grown.set(values);
  return grown;
}

const MS_PER_DAY = 86_400_000;

/**
 * The status time column's value for a timestamp: ms since the epoch, as `Date.parse` gives it.
 * The runtime writes every timestamp with `Date#toISOString` (`YYYY-MM-DDTHH:mm:ss.sssZ`), which
 * is read here digit by digit, since every memory store write reads one and Date.parse's general
 * parser is a large share of such a write; any other form, or a field out of range, is left to
 * Date.parse itself.
 */
export function timeOf(iso: string): number {
  if (
    iso.length === 24 &&
    iso.charCodeAt(4) === 0x2d &&
    iso.charCodeAt(7) === 0x2d &&
    iso.charCodeAt(10) === 0x54 &&
    iso.charCodeAt(13) === 0x3a &&
    iso.charCodeAt(16) === 0x3a &&
    iso.charCodeAt(19) === 0x2e &&
    iso.charCodeAt(23) === 0x5a
  ) {
    const year = asciiDigits(iso, 0, 4);
    const month = asciiDigits(iso, 5, 2);
    const day = asciiDigits(iso, 8, 2);
    const hour = asciiDigits(iso, 11, 2);
    const minute = asciiDigits(iso, 14, 2);
    const second = asciiDigits(iso, 17, 2);
    const ms = asciiDigits(iso, 20, 3);
    // Date.parse takes any day 1..31 in any month and counts on (Feb 30 is Mar 2): so does this.
    if (
      year >= 0 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= 31 &&
      hour >= 0 &&
      hour <= 23 &&
      minute >= 0 &&
      minute <= 59 &&
      second >= 0 &&
      second <= 59 &&
      ms >= 0
    )
      return daysFromCivil(year, month, day) * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms;
  }
  return Date.parse(iso);
}

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1..12): the usual era arithmetic. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
