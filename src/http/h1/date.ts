/**
 * The Date header's value (RFC 9110 §6.6.1: an origin server with a clock sends it), made at most
 * once a second: formatting a date for every answer would cost more than the rest of its head.
 */
let text = '';
let madeAt = -1;

export function httpDate(): string {
  const now = Date.now();
  const second = now - (now % 1000);
  if (second !== madeAt) {
    madeAt = second;
    text = new Date(second).toUTCString();
  }
  return text;
}
