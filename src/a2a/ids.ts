/** Task, context, message and artifact ids. */
import { v7 as uuidv7 } from 'uuid';

/**
 * UUID v7 ids: time ordered (keyset pagination), monotonic within a millisecond. Random bytes
 * come from a pool refilled 4 KiB at a time: one crypto call per 256 ids instead of one per id.
 * `uuid` lays the bytes out into one reused array and the text is written in one go (its own
 * stringify builds the id from 20 pieces). Its options object and the 16 random bytes it reads
 * are reused too: a `subarray` view and an options literal per id would be garbage made for
 * every task, message and artifact.
 */
const randomPool = new Uint8Array(4096);
let poolOffset = randomPool.length;
const clock = { msecs: -Infinity, seq: 0 };
const idBytes = new Uint8Array(16);
/** The id's random bytes, copied out of the pool (uuid reads them during the call only). */
const idRandom = new Uint8Array(16);
const v7Options = { random: idRandom, msecs: 0, seq: 0 };
const idText = Buffer.alloc(36, '-');
const HEX = Array.from(
  { length: 256 },
  (_, b) => b.toString(16).padStart(2, '0').charCodeAt(0) * 256 + b.toString(16).padStart(2, '0').charCodeAt(1),
);
/** Where each byte's two hex digits go in `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

export function newId(): string {
  if (poolOffset >= randomPool.length) {
    crypto.getRandomValues(randomPool);
    poolOffset = 0;
  }
  const random = idRandom;
  for (let i = 0; i < 16; i++) random[i] = randomPool[poolOffset + i] as number;
  poolOffset += 16;
  const now = Date.now();
  if (now > clock.msecs) {
    clock.msecs = now;
    // A random start in the lower half of the 31-bit range leaves room to count up.
    clock.seq =
      ((random[6] as number) << 22) | ((random[7] as number) << 14) | ((random[8] as number) << 6) | ((random[9] as number) >>> 2);
  } else {
    clock.seq = (clock.seq + 1) | 0;
    if (clock.seq === 0) clock.msecs++;
  }
  v7Options.msecs = clock.msecs;
  v7Options.seq = clock.seq;
  uuidv7(v7Options, idBytes);
  for (let i = 0; i < 16; i++) idText.writeUInt16BE(HEX[idBytes[i] as number] as number, HEX_AT[i] as number);
  return idText.toString('latin1', 0, 36);
}
